import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ToolPolicy } from '../../../../src/core/policy/approval';
import { compareRuns } from '../../../../src/core/replay/compare-runs';
import { loadRecording, type LoadedRecording } from '../../../../src/core/replay/loaded-recording';
import { reapplyFileChanges } from '../../../../src/core/replay/reapply-files';
import { rerunFrom } from '../../../../src/core/replay/rerun-run';
import { createFileTools } from '../../../../src/core/tools/builtin/file-tools';
import { makeRerunPlace } from '../../../../src/node/rerun-place';
import { NodeWorkspace } from '../../../../src/node/node-workspace';
import type { SqlJsStore } from '../../../../src/store/sqljs-store';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import type { ScenarioInput } from '../../../fixtures/fake-model-server/scenario';
import { openStore, tempDir } from '../../store/store-helpers';
import { committedRepository, git, recordIn, rerunDeps, tempFolder } from './rerun-harness';

/** Two personalities on one server: `fake-model` fixes the greeting, `fake-model-large` shouts it. */
const TWO_PERSONALITIES: ScenarioInput = {
  name: 'rerun-two-personalities',
  turns: [
    {
      model: 'fake-model',
      text: 'Reading it.',
      toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'a.txt' } }],
    },
    {
      model: 'fake-model',
      toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'a.txt', content: 'hello world\n' } }],
    },
    { model: 'fake-model', text: 'Done: a.txt says hello world.' },
    {
      model: 'fake-model-large',
      toolCalls: [{ id: 'w9', name: 'write_file', arguments: { path: 'a.txt', content: 'HELLO!\n' } }],
    },
    { model: 'fake-model-large', text: 'Shouted it.' },
  ],
};

describe('re-run from step N with one thing changed', function () {
  this.timeout(120_000);
  let server: FakeModelServer;
  let store: SqlJsStore;
  let repository: { root: string; commit: string };
  let original: LoadedRecording;
  let places: string;

  before(async () => {
    server = await FakeModelServer.start({ scenario: TWO_PERSONALITIES });
    store = (await openStore(tempDir())).store;
    repository = committedRepository({ 'a.txt': 'hello\n' });
    await recordIn(server, store, repository.root, 'Fix the greeting in a.txt');
    original = await loadRecording(store.recordings, 'c1');
    places = tempFolder('places');
  });
  after(async () => {
    await store?.close();
    await server?.close();
  });

  it('records the run it re-runs: prompt, read, write, answer, at the repository commit', () => {
    assert.deepEqual(
      original.recording.steps.map((step) => `${step.step}:${step.kind}`),
      ['1:prompt', '2:model', '3:tool', '4:model', '5:tool', '6:model'],
    );
    assert.equal(original.recording.manifest.place.commit, repository.commit);
    assert.equal(fs.readFileSync(path.join(repository.root, 'a.txt'), 'utf8'), 'hello world\n');
  });

  it('replays steps before N without a model call, then runs live with another model in a worktree at the recorded commit', async () => {
    server.setScenario(TWO_PERSONALITIES);
    const callsBefore = server.modelCalls.length;
    const place = await makeRerunPlace({
      manifest: original.recording.manifest,
      cwd: repository.root,
      baseFolder: places,
      short: 'model1',
    });
    assert.equal(place.worktree?.branch, 'openagent/rerun-model1');
    assert.equal(git(place.root, 'rev-parse', 'HEAD'), repository.commit);
    assert.equal(fs.readFileSync(path.join(place.root, 'a.txt'), 'utf8'), 'hello\n', 'the file as committed');

    const deps = { ...rerunDeps(server, store, place.root, 'rerun-model'), place: place.manifestPlace };
    const outcome = await rerunFrom(original, 4, { model: 'fake-model-large' }, deps);
    assert.equal(outcome.divergence, undefined, JSON.stringify(outcome.divergence));
    assert.equal(outcome.wentLive, true);
    assert.equal(outcome.stepsReplayed, 3);

    // Only the live part reached the server, and it named the new model.
    const calls = server.modelCalls.slice(callsBefore);
    assert.deepEqual(
      calls.map((call) => (call.body as { model: string }).model),
      ['fake-model-large', 'fake-model-large'],
    );
    assert.equal(
      fs.readFileSync(path.join(place.root, 'a.txt'), 'utf8'),
      'HELLO!\n',
      'the live write went to the worktree',
    );
    assert.equal(
      fs.readFileSync(path.join(repository.root, 'a.txt'), 'utf8'),
      'hello world\n',
      'the workspace untouched',
    );

    const rerun = await loadRecording(store.recordings, 'rerun-model');
    assert.deepEqual(rerun.recording.manifest.forkedFrom, { conversationId: 'c1', seq: 0, step: 4 });
    assert.equal(rerun.recording.manifest.place.root, place.root);
    const comparison = compareRuns(original, rerun);
    assert.equal(comparison.firstDivergence?.step, 4, JSON.stringify(comparison.firstDivergence));
    assert.match(comparison.firstDivergence!.what, /model answered differently/);
    assert.match(comparison.firstDivergence!.actual, /fake-model-large/);
    assert.ok(
      comparison.rows.slice(0, 3).every((row) => row.same),
      'the replayed steps are the recorded ones',
    );
  });

  it('changes a tool result at N: the model is told the new one', async () => {
    server.setScenario({
      name: 'after-a-changed-read',
      turns: [
        { toolCalls: [{ id: 'w2', name: 'write_file', arguments: { path: 'a.txt', content: 'goodbye world\n' } }] },
        { text: 'Said goodbye.' },
      ],
    });
    const callsBefore = server.modelCalls.length;
    const root = tempFolder('tool-result');
    const outcome = await rerunFrom(
      original,
      3,
      { toolResult: { step: 3, output: '1\tgoodbye\n', isError: false } },
      rerunDeps(server, store, root, 'rerun-tool'),
    );
    assert.equal(outcome.wentLive, true, outcome.notes.join('\n'));
    const first = server.modelCalls[callsBefore]!;
    assert.match(JSON.stringify(first.body), /1\\tgoodbye/, 'the changed result was sent');
    assert.equal((first.body as { model: string }).model, 'fake-model', 'the recorded model');
    const comparison = compareRuns(original, await loadRecording(store.recordings, 'rerun-tool'));
    assert.equal(comparison.firstDivergence?.step, 3);
    assert.match(comparison.firstDivergence!.what, /read_file call differs/);
    assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'goodbye world\n');
  });

  it("changes the user's message at a prompt step", async () => {
    server.setScenario({
      name: 'a-changed-message',
      turns: [
        {
          match: 'shout',
          toolCalls: [{ id: 'w3', name: 'write_file', arguments: { path: 'a.txt', content: 'HELLO\n' } }],
        },
        { text: 'Shouted.' },
      ],
    });
    const root = tempFolder('message');
    const outcome = await rerunFrom(
      original,
      1,
      { message: { step: 1, text: 'Make a.txt shout' } },
      rerunDeps(server, store, root, 'rerun-message'),
    );
    assert.equal(outcome.wentLive, true);
    assert.equal(outcome.stepsReplayed, 0);
    const rerun = await loadRecording(store.recordings, 'rerun-message');
    const prompt = rerun.recording.steps[0]!;
    assert.equal(prompt.kind === 'prompt' && rerun.content(prompt.text), 'Make a.txt shout');
    const comparison = compareRuns(original, rerun);
    assert.equal(comparison.firstDivergence?.step, 1);
    assert.match(comparison.firstDivergence!.what, /prompt differs/);
    assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'HELLO\n');
  });

  it('applies a changed policy from N on, not before', async () => {
    server.setScenario({ name: 'after-a-denial', turns: [{ text: 'The policy said no.' }] });
    const root = tempFolder('policy');
    const denyWrites: ToolPolicy = {
      evaluate: (call) =>
        call.toolName === 'write_file'
          ? { action: 'deny', reason: 'no writes here' }
          : { action: 'allow', source: 'policy' },
    };
    const outcome = await rerunFrom(
      original,
      5,
      { policy: denyWrites },
      rerunDeps(server, store, root, 'rerun-policy'),
    );
    assert.equal(outcome.wentLive, true);
    const denial = outcome.events.find((event) => event.type === 'tool_approval_result');
    assert.ok(denial?.type === 'tool_approval_result' && !denial.approved && denial.source === 'policy');
    assert.equal(fs.existsSync(path.join(root, 'a.txt')), false, 'the denied write did not run');
    const comparison = compareRuns(original, await loadRecording(store.recordings, 'rerun-policy'));
    assert.equal(comparison.firstDivergence?.step, 5);
    assert.match(comparison.firstDivergence!.actual, /denied by policy/);
  });

  it('puts the files the run changed before N in the worktree, then goes live', async () => {
    server.setScenario({ name: 'after-the-write', turns: [{ model: 'fake-model-large', text: 'Looks good.' }] });
    const place = await makeRerunPlace({
      manifest: original.recording.manifest,
      cwd: repository.root,
      baseFolder: places,
      short: 'files6',
    });
    const tools = createFileTools(new NodeWorkspace(place.root));
    const reapplied = await reapplyFileChanges(original, 6, tools, new NodeWorkspace(place.root));
    assert.deepEqual(reapplied.applied, [{ step: 5, path: 'a.txt' }]);
    assert.deepEqual(reapplied.refused, []);
    assert.equal(fs.readFileSync(path.join(place.root, 'a.txt'), 'utf8'), 'hello world\n');
    const outcome = await rerunFrom(
      original,
      6,
      { model: 'fake-model-large' },
      { ...rerunDeps(server, store, place.root, 'rerun-files'), place: place.manifestPlace },
    );
    assert.equal(outcome.wentLive, true);
    const comparison = compareRuns(original, await loadRecording(store.recordings, 'rerun-files'));
    assert.equal(comparison.firstDivergence?.step, 6);
    assert.ok(
      comparison.rows.slice(0, 5).every((row) => row.same),
      JSON.stringify(comparison.rows.slice(0, 5)),
    );
  });
});

describe('the place of a re-run without git', () => {
  it('is a scratch copy of the folder as it is now (no links, no .git), and says so', async () => {
    const folder = tempFolder('plain');
    fs.writeFileSync(path.join(folder, 'a.txt'), 'now\n');
    fs.mkdirSync(path.join(folder, 'src'));
    fs.writeFileSync(path.join(folder, 'src', 'b.txt'), 'b\n');
    fs.symlinkSync('/etc', path.join(folder, 'etc-link'));
    const manifest = {
      format: 1 as const,
      product: 't',
      conversationId: 'c',
      startedAt: 0,
      place: { kind: 'workspace' as const, root: folder, commit: 'abc1234' },
      models: [],
      system: `sha256:${'0'.repeat(64)}` as const,
      tools: [],
      policy: { hash: '', sources: [] },
      limits: {},
    };
    const baseFolder = tempFolder('scratch-base');
    const place = await makeRerunPlace({ manifest, cwd: folder, baseFolder, short: 'plain' });
    assert.equal(place.worktree, undefined);
    assert.equal(place.manifestPlace.kind, 'workspace');
    assert.equal(fs.readFileSync(path.join(place.root, 'a.txt'), 'utf8'), 'now\n');
    assert.equal(fs.readFileSync(path.join(place.root, 'src', 'b.txt'), 'utf8'), 'b\n');
    assert.equal(fs.existsSync(path.join(place.root, 'etc-link')), false, 'links are not copied');
    assert.match(place.notices.join('\n'), /not a git repository: the re-run works in a scratch copy .* as it is now/);

    await assert.rejects(
      makeRerunPlace({ manifest, cwd: folder, baseFolder, short: 'small', limits: { files: 1, bytes: 1_000 } }),
      /too large for a scratch copy/,
    );
    assert.deepEqual(fs.readdirSync(baseFolder), [path.basename(place.root)], 'nothing left of the refused copy');
  });
});
