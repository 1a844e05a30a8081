/**
 * Hostile inputs to a re-run from step N: step numbers that are no step, changes for another kind
 * of step, a recorded commit the repository lacks, recorded write paths that lead out of the
 * re-run's place, policy files that are a FIFO or huge, an imported run with --yes.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { contentOf } from '../../src/core/replay/content-hash';
import { loadRecording, prepareRecording, type LoadedRecording } from '../../src/core/replay/loaded-recording';
import { reapplyFileChanges } from '../../src/core/replay/reapply-files';
import type { ContentRef, RunRecording, ToolStep } from '../../src/core/replay/recording';
import { rerunFrom } from '../../src/core/replay/rerun-run';
import type { ApprovalRequest, ToolPolicy } from '../../src/core/policy/approval';
import { WorktreeError } from '../../src/core/session/worktree-port';
import { createFileTools } from '../../src/core/tools/builtin/file-tools';
import { NodeWorkspace } from '../../src/node/node-workspace';
import { makeRerunPlace } from '../../src/node/rerun-place';
import type { SqlJsStore } from '../../src/store/sqljs-store';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { openStore, tempDir } from '../unit/store/store-helpers';
import { committedRepository, git, recordIn, rerunDeps, tempFolder } from '../unit/core/replay/rerun-harness';
import { runCli } from '../unit/cli/cli-helpers';

const SCENARIO = {
  name: 'hostile-rerun',
  turns: [
    { toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'a.txt' } }] },
    { toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'a.txt', content: 'changed\n' } }] },
    { text: 'Done.' },
  ],
};

describe('re-run from step N: hostile inputs', function () {
  this.timeout(120_000);
  let server: FakeModelServer;
  let store: SqlJsStore;
  let repository: { root: string; commit: string };
  let loaded: LoadedRecording;

  before(async () => {
    server = await FakeModelServer.start({ scenario: SCENARIO });
    store = (await openStore(tempDir())).store;
    repository = committedRepository({ 'a.txt': 'hello\n' });
    await recordIn(server, store, repository.root, 'Change a.txt');
    loaded = await loadRecording(store.recordings, 'c1');
  });
  after(async () => {
    await store?.close();
    await server?.close();
  });

  for (const from of [0, -1, 7, 999, Number.NaN, 1.5, Number.POSITIVE_INFINITY, 2 ** 60]) {
    it(`refuses step ${from} by naming the range, and calls no model`, async () => {
      const calls = server.modelCalls.length;
      await assert.rejects(
        rerunFrom(loaded, from, { model: 'other' }, rerunDeps(server, store, tempFolder('range'), `range-${from}`)),
        /is out of range: this recording has steps 1 to 6\./,
      );
      assert.equal(server.modelCalls.length, calls);
      assert.equal(await store.recordings.getRecording(`range-${from}`), undefined, 'nothing recorded');
    });
  }

  it('refuses a change that does not apply at N', async () => {
    const deps = rerunDeps(server, store, tempFolder('misfit'), 'misfit');
    await assert.rejects(rerunFrom(loaded, 2, { message: { step: 2, text: 'x' } }, deps), /step 2 is a model call/);
    await assert.rejects(
      rerunFrom(loaded, 1, { message: { step: 3, text: 'x' } }, deps),
      /is for step 3, but the re-run starts at step 1/,
    );
    await assert.rejects(
      rerunFrom(loaded, 2, { toolResult: { step: 2, output: 'x', isError: false } }, deps),
      /step 2 is a model call/,
    );
    await assert.rejects(rerunFrom(loaded, 1, { message: { step: 1, text: '   ' } }, deps), /The new message is empty/);
    await assert.rejects(rerunFrom(loaded, 2, { model: 'a\nb' }, deps), /is not a model name/);
  });

  it('refuses a recorded commit the repository does not have, and makes nothing', async () => {
    const baseFolder = tempFolder('gone');
    for (const commit of ['0123456789abcdef0123456789abcdef01234567', '--output=/tmp/x', 'HEAD~1', 'main']) {
      const manifest = { ...loaded.recording.manifest, place: { ...loaded.recording.manifest.place, commit } };
      await assert.rejects(
        makeRerunPlace({ manifest, cwd: repository.root, baseFolder, short: 'gone' }),
        (error: unknown) =>
          error instanceof WorktreeError &&
          error.kind === 'no-such-commit' &&
          /is not in this repository/.test(error.message),
      );
    }
    assert.deepEqual(fs.readdirSync(baseFolder), [], 'no folder made');
    assert.equal(git(repository.root, 'branch', '--list', 'openagent/*'), '', 'no branch made');
    assert.equal(git(repository.root, 'worktree', 'list').split('\n').length, 1, 'no worktree added');
  });

  it('refuses recorded write paths that lead out of the place: .., absolute, a link', async () => {
    const outside = tempFolder('outside');
    const place = tempFolder('place');
    fs.symlinkSync(outside, path.join(place, 'link'));
    const recording: RunRecording = structuredClone(loaded.recording);
    const write = recording.steps.find(
      (step): step is ToolStep => step.kind === 'tool' && step.toolName === 'write_file',
    )!;
    const extra = new Map<ContentRef, unknown>();
    const inputRef = (value: unknown) => {
      const { ref } = contentOf(value);
      extra.set(ref, value);
      return ref;
    };
    const hostile = [
      '../escape.txt',
      `${outside}/absolute.txt`,
      'link/through-link.txt',
      'a/../../up.txt',
      'C:\\win.txt',
    ];
    let next = recording.steps.at(-1)!.step;
    for (const [index, target] of hostile.entries())
      recording.steps.push({
        ...write,
        step: ++next,
        toolCallId: `hostile-${index}`,
        input: inputRef({ path: target, content: 'pwned\n' }),
      });
    const hostileLoaded = await prepareRecording(
      recording,
      (ref) => extra.get(ref) ?? store.recordings.getContent(ref),
    );
    const workspace = new NodeWorkspace(place);
    const outcome = await reapplyFileChanges(hostileLoaded, next + 1, createFileTools(workspace), workspace);
    assert.deepEqual(outcome.applied, [{ step: write.step, path: 'a.txt' }], 'only the honest write');
    assert.deepEqual(
      outcome.refused.map((refused) => refused.path),
      hostile.map((target) => target.slice(0, 200)),
    );
    assert.match(outcome.refused[0]!.reason, /climbs out/);
    assert.match(outcome.refused[1]!.reason, /absolute/);
    assert.match(outcome.refused[2]!.reason, /outside the workspace/);
    assert.deepEqual(fs.readdirSync(outside), [], 'nothing written outside');
    assert.equal(fs.existsSync(path.join(path.dirname(place), 'escape.txt')), false);
    assert.equal(fs.existsSync(path.join(path.dirname(place), 'up.txt')), false);
  });

  it('an imported run asks a person about every change from N on, whatever the policy allows', async () => {
    const allowAll: ToolPolicy = { evaluate: () => ({ action: 'allow', source: 'policy' }) };
    const run = async (imported: boolean) => {
      server.setScenario(SCENARIO);
      const asked: ApprovalRequest[] = [];
      const deps = {
        ...rerunDeps(server, store, tempFolder('imported'), `imported-${imported}`),
        policy: allowAll,
        imported,
        approvals: {
          request: async (request: ApprovalRequest) => {
            asked.push(request);
            return { approved: true, source: 'user' as const };
          },
        },
      };
      const outcome = await rerunFrom(loaded, 1, {}, deps);
      assert.equal(outcome.wentLive, true);
      return asked;
    };
    assert.deepEqual(
      (await run(false)).map((request) => request.toolName),
      [],
    );
    const asked = await run(true);
    assert.deepEqual(
      asked.map((request) => request.toolName),
      ['write_file'],
    );
    assert.match(asked[0]!.risk.inPerson ?? '', /imported/);
  });
});

describe('openagent replay --from: hostile policy files and imported runs', function () {
  this.timeout(120_000);
  let folder: string;
  let file: string;

  before(async () => {
    const server = await FakeModelServer.start({ scenario: SCENARIO });
    const store = (await openStore(tempDir())).store;
    const repository = committedRepository({ 'a.txt': 'hello\n' });
    await recordIn(server, store, repository.root, 'Change a.txt');
    const recording = (await store.recordings.getRecording('c1'))!;
    const refs = new Set<ContentRef>([recording.manifest.system]);
    const loaded = await loadRecording(store.recordings, 'c1');
    // Every ref the loaded recording read, with the parts of requests kept by parts.
    const content: Record<string, unknown> = {};
    const collect = async (value: unknown): Promise<void> => {
      if (typeof value === 'string' && /^sha256:[0-9a-f]{64}$/.test(value) && !(value in content)) {
        content[value] = await store.recordings.getContent(value as ContentRef);
        await collect(content[value]);
      } else if (Array.isArray(value)) for (const item of value) await collect(item);
      else if (value && typeof value === 'object') for (const item of Object.values(value)) await collect(item);
    };
    for (const ref of refs) await collect(ref);
    await collect(loaded.recording.steps);
    await collect(recording.manifest);
    folder = tempFolder('hostile-cli');
    file = path.join(folder, 'imported.json');
    fs.writeFileSync(
      file,
      JSON.stringify({ recording: { ...recording, manifest: { ...recording.manifest, imported: true } }, content }),
    );
    await store.close();
    await server.close();
  });

  const rerun = (...flags: string[]) =>
    runCli(['replay', file, '--store', tempFolder('store'), ...flags], { cwd: folder });

  it('refuses a --policy that is a FIFO (without hanging) or huge, naming the problem', async () => {
    const fifo = path.join(folder, 'policy.fifo');
    execFileSync('mkfifo', [fifo]);
    const ran = await rerun('--from', '2', '--policy', fifo);
    assert.equal(ran.code, 1, ran.stderr);
    assert.match(ran.stderr, /Cannot use .*policy\.fifo as a policy: It is not a regular file \(a FIFO/);
    const huge = path.join(folder, 'huge.yaml');
    fs.writeFileSync(huge, '');
    fs.truncateSync(huge, 64 * 1024 * 1024);
    const big = await rerun('--from', '2', '--policy', huge);
    assert.equal(big.code, 1);
    assert.match(big.stderr, /Cannot use .*huge\.yaml as a policy: It is \d+ KB; at most/);
    const missing = await rerun('--from', '2', '--policy', path.join(folder, 'nothing.yaml'));
    assert.match(missing.stderr, /There is no policy file/);
  });

  it('refuses --yes for an imported run: it never runs live without asking', async () => {
    const ran = await rerun('--from', '2', '--yes');
    assert.equal(ran.code, 1);
    assert.match(ran.stderr, /imported from another machine: it never runs a live tool without asking/);
  });
});
