import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ApprovalGate, ApprovalRequest, ToolPolicy } from '../../../../src/core/policy/approval';
import { replayWithLiveTools, type LiveReplayDeps } from '../../../../src/core/replay/live-replay';
import { fileComparisons, firstDifference } from '../../../../src/core/replay/live-replay-files';
import { renderLiveReplay } from '../../../../src/core/replay/live-replay-report';
import { loadRecording, type LoadedRecording } from '../../../../src/core/replay/loaded-recording';
import { createFileTools } from '../../../../src/core/tools/builtin/file-tools';
import { makeLivePlace } from '../../../../src/node/live-replay-place';
import { NodeWorkspace } from '../../../../src/node/node-workspace';
import type { SqlJsStore } from '../../../../src/store/sqljs-store';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import type { ScenarioInput } from '../../../fixtures/fake-model-server/scenario';
import { openStore, tempDir } from '../../store/store-helpers';
import { committedRepository, git, recordIn, tempFolder } from './rerun-harness';

const SCENARIO: ScenarioInput = {
  name: 'live-replay',
  turns: [
    { text: 'Reading it.', toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'a.txt' } }] },
    { toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'a.txt', content: 'hello world\n' } }] },
    { text: 'Done: a.txt says hello world.' },
  ],
};

/** A gate that approves and counts what it was asked. */
function countingGate(): ApprovalGate & { asked: ApprovalRequest[] } {
  const asked: ApprovalRequest[] = [];
  return {
    asked,
    request: async (request) => {
      asked.push(request);
      return { approved: true, source: 'user' };
    },
  };
}

function depsIn(root: string, gate: ApprovalGate, extra: Partial<LiveReplayDeps> = {}): LiveReplayDeps {
  const workspace = new NodeWorkspace(root);
  return {
    tools: createFileTools(workspace),
    root,
    approvals: gate,
    readFile: async (relative) => {
      const file = path.join(root, relative);
      return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
    },
    ...extra,
  };
}

describe('replay with live tools', function () {
  this.timeout(120_000);
  let server: FakeModelServer;
  let store: SqlJsStore;
  let repository: { root: string; commit: string };
  let original: LoadedRecording;
  let places: string;
  let made = 0;
  const freshWorktree = async () =>
    makeLivePlace({
      manifest: original.recording.manifest,
      cwd: repository.root,
      baseFolder: places,
      short: `t${++made}`,
    });

  before(async () => {
    server = await FakeModelServer.start({ scenario: SCENARIO });
    store = (await openStore(tempDir())).store;
    repository = committedRepository({ 'a.txt': 'hello\n' });
    await recordIn(server, store, repository.root, 'Fix the greeting in a.txt');
    original = await loadRecording(store.recordings, 'c1');
    places = tempFolder('live-places');
  });
  after(async () => {
    await store?.close();
    await server?.close();
  });

  it('runs the tools for real at the recorded commit, asks as usual, and finds the world the same', async () => {
    assert.deepEqual(
      original.recording.steps.map((step) => `${step.step}:${step.kind}`),
      ['1:prompt', '2:model', '3:tool', '4:model', '5:tool', '6:model'],
    );
    const place = await freshWorktree();
    assert.equal(git(place.root, 'rev-parse', 'HEAD'), repository.commit);
    assert.equal(fs.readFileSync(path.join(place.root, 'a.txt'), 'utf8'), 'hello\n', 'the recorded starting point');
    const calls = server.modelCalls.length;
    const gate = countingGate();
    const outcome = await replayWithLiveTools(original, depsIn(place.root, gate));
    assert.equal(server.modelCalls.length, calls, 'the model is the recording');
    assert.equal(outcome.sameWorld, true, JSON.stringify(outcome.divergence));
    assert.equal(outcome.ended, 'complete');
    assert.deepEqual(
      outcome.tools.map((tool) => [tool.step, tool.toolName, tool.same]),
      [
        [3, 'read_file', true],
        [5, 'write_file', true],
      ],
    );
    assert.deepEqual(
      gate.asked.map((request) => request.toolName),
      ['write_file'],
      'the write was asked, as any run asks it',
    );
    assert.equal(fs.readFileSync(path.join(place.root, 'a.txt'), 'utf8'), 'hello world\n', 'written for real');
    assert.deepEqual(
      outcome.files.map((file) => [file.path, file.changedThen, file.changedNow, file.same]),
      [['a.txt', true, true, true]],
    );
    const text = renderLiveReplay('c1', outcome, {
      root: place.root,
      worktree: { branch: place.worktree!.branch, repository: repository.root },
    });
    assert.match(text, /The world answered the same\./);
    assert.match(text, /worktree remove --force/);
  });

  it('reports the step where the world answered differently and stops at the request that differs', async () => {
    const place = await freshWorktree();
    fs.writeFileSync(path.join(place.root, 'a.txt'), 'goodbye\n');
    const gate = countingGate();
    const outcome = await replayWithLiveTools(original, depsIn(place.root, gate));
    assert.equal(outcome.sameWorld, false);
    assert.equal(outcome.ended, 'divergence');
    assert.equal(outcome.tools.length, 1);
    const [read] = outcome.tools;
    assert.equal(read!.step, 3);
    assert.equal(read!.same, false);
    assert.match(read!.difference!, /line 1: recorded "1\\thello", now "1\\tgoodbye"/);
    assert.equal(outcome.divergence?.step, 4);
    assert.match(outcome.divergence!.what, /the model request differs: .*read_file call r1/);
    assert.equal(gate.asked.length, 0, 'nothing past the divergence was asked');
    assert.equal(fs.readFileSync(path.join(place.root, 'a.txt'), 'utf8'), 'goodbye\n', 'nothing past it ran');
    const text = renderLiveReplay('c1', outcome, { root: place.root });
    assert.match(text, /DIFFERS step 3: read_file/);
    assert.match(text, /First divergence at step 4/);
    assert.match(text, /The replay stopped there/);
    assert.match(text, /Remove it with: rm -rf /);
  });

  it('stops at --until, comparing only the steps it reached', async () => {
    const place = await freshWorktree();
    const outcome = await replayWithLiveTools(original, depsIn(place.root, countingGate()), { until: 3 });
    assert.equal(outcome.ended, 'until');
    assert.equal(outcome.sameWorld, true);
    assert.deepEqual(
      outcome.tools.map((tool) => tool.step),
      [3],
    );
    assert.equal(fs.readFileSync(path.join(place.root, 'a.txt'), 'utf8'), 'hello\n');
    await assert.rejects(
      replayWithLiveTools(original, depsIn(place.root, countingGate()), { until: 7 }),
      /Step 7 is out of range: this recording has steps 1 to 6/,
    );
  });

  it('asks a person about every change of an imported run, whatever the policy allows', async () => {
    const allowAll: ToolPolicy = { evaluate: () => ({ action: 'allow', source: 'policy' }) };
    const local = countingGate();
    await replayWithLiveTools(original, depsIn((await freshWorktree()).root, local, { policy: allowAll }));
    assert.equal(local.asked.length, 0, 'the policy allows it here');
    const imported = countingGate();
    const outcome = await replayWithLiveTools(
      original,
      depsIn((await freshWorktree()).root, imported, { policy: allowAll, imported: true }),
    );
    assert.deepEqual(
      imported.asked.map((request) => request.toolName),
      ['write_file'],
    );
    assert.equal(outcome.sameWorld, true);
  });

  it('a write the user denies now is a differing result, and the replay stops at the next request', async () => {
    const place = await freshWorktree();
    const deny: ApprovalGate = { request: async () => ({ approved: false, source: 'user', reason: 'not now' }) };
    const outcome = await replayWithLiveTools(original, depsIn(place.root, deny));
    assert.equal(outcome.sameWorld, false);
    assert.deepEqual(
      outcome.tools.map((tool) => [tool.step, tool.same]),
      [
        [3, true],
        [5, false],
      ],
    );
    assert.equal(outcome.divergence?.step, 6);
    assert.equal(fs.readFileSync(path.join(place.root, 'a.txt'), 'utf8'), 'hello\n');
    const file = outcome.files.find((candidate) => candidate.path === 'a.txt');
    assert.deepEqual([file?.changedThen, file?.changedNow, file?.same], [true, false, false]);
  });

  it('compares a recorded whole write with the file now, naming the first line that differs', async () => {
    const used = new Set(original.recording.steps.map((step) => step.step));
    const tools = new Map(
      createFileTools(new NodeWorkspace(repository.root)).map((tool) => [tool.name, tool] as const),
    );
    const files = await fileComparisons(original, used, tools, new Set(['a.txt']), {
      root: '/nowhere',
      readFile: async () => 'hello there\n',
    });
    assert.equal(files.length, 1);
    assert.equal(files[0]!.same, false);
    assert.match(files[0]!.difference!, /line 1: recorded "hello world", now "hello there"/);
    assert.equal(firstDifference('a\nb', 'a\nb\nc'), 'line 3: the live result goes on: "c"');
    assert.equal(firstDifference('a\nb\nc', 'a\nb'), 'line 3: the live result ends; recorded "c"');
  });
});
