/**
 * Hostile inputs to a replay with live tools: a recording whose commit is gone, a commit shaped
 * like a git option, a folder (no git) holding a link to /etc and a FIFO, recorded tool paths
 * that leave the place (relative and absolute, into the original workspace), a scratch copy too
 * large, and an imported run asked to run with --yes.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ApprovalGate } from '../../src/core/policy/approval';
import { replayWithLiveTools } from '../../src/core/replay/live-replay';
import { loadRecording, type LoadedRecording } from '../../src/core/replay/loaded-recording';
import { reachableContent } from '../../src/core/replay/run-export';
import type { RunManifest } from '../../src/core/replay/recording';
import { WorktreeError } from '../../src/core/session/worktree-port';
import { createFileTools } from '../../src/core/tools/builtin/file-tools';
import { runReplayCommand } from '../../src/cli/replay-command';
import { makeLivePlace, ScratchCopyError } from '../../src/node/live-replay-place';
import { NodeWorkspace } from '../../src/node/node-workspace';
import type { SqlJsStore } from '../../src/store/sqljs-store';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import type { ScenarioInput } from '../fixtures/fake-model-server/scenario';
import { openStore, tempDir } from '../unit/store/store-helpers';
import { committedRepository, git, recordIn, tempFolder } from '../unit/core/replay/rerun-harness';

const APPROVE_ALL: ApprovalGate = { request: async () => ({ approved: true, source: 'user' }) };

function manifestAt(root: string, commit: string | undefined): RunManifest {
  return {
    format: 1,
    product: 'test',
    conversationId: 'hostile',
    startedAt: 0,
    place: { kind: 'workspace', root, ...(commit !== undefined ? { commit } : {}) },
    models: [],
    system: `sha256:${'0'.repeat(64)}`,
    tools: [],
    policy: { hash: 'x', sources: [] },
    limits: {},
  };
}

function collector(): NodeJS.WritableStream & { text: string } {
  const sink = {
    text: '',
    write(chunk: unknown) {
      sink.text += String(chunk);
      return true;
    },
  };
  return sink as unknown as NodeJS.WritableStream & { text: string };
}

describe('adversarial: replay with live tools', function () {
  this.timeout(120_000);

  describe('the place', () => {
    it('refuses a recorded commit the repository no longer has, making nothing', async () => {
      const repository = committedRepository({ 'a.txt': 'hello\n' });
      const places = tempFolder('gone');
      await assert.rejects(
        makeLivePlace({
          manifest: manifestAt(repository.root, 'f'.repeat(40)),
          cwd: repository.root,
          baseFolder: places,
          short: 'gone',
        }),
        (error: unknown) =>
          error instanceof WorktreeError &&
          error.kind === 'no-such-commit' &&
          /is not in this repository/.test(error.message),
      );
      assert.deepEqual(fs.readdirSync(places), []);
      assert.equal(git(repository.root, 'branch', '--list', 'openagent/*'), '');
    });

    it('refuses a commit shaped like a git option or a revision expression, running nothing', async () => {
      const repository = committedRepository({ 'a.txt': 'hello\n' });
      const places = tempFolder('option');
      const marker = path.join(places, 'pwned');
      for (const commit of [`--upload-pack=touch ${marker}`, '-h', 'HEAD~1', 'main', `${'a'.repeat(8)}..HEAD`, '']) {
        await assert.rejects(
          makeLivePlace({
            manifest: manifestAt(repository.root, commit),
            cwd: repository.root,
            baseFolder: places,
            short: 'opt',
          }),
          (error: unknown) => error instanceof WorktreeError && error.kind === 'no-such-commit',
          commit,
        );
      }
      assert.equal(fs.existsSync(marker), false);
      assert.deepEqual(fs.readdirSync(places), []);
    });

    it('copies a folder without git but not its link to /etc nor its FIFO, and says so', async function () {
      const folder = tempFolder('scratch-src');
      fs.writeFileSync(path.join(folder, 'a.txt'), 'hello\n');
      fs.mkdirSync(path.join(folder, 'sub'));
      fs.symlinkSync('/etc', path.join(folder, 'etc'));
      fs.symlinkSync('../a.txt', path.join(folder, 'sub', 'inside'));
      fs.symlinkSync('/etc/passwd', path.join(folder, 'sub', 'passwd'));
      try {
        execFileSync('mkfifo', [path.join(folder, 'pipe')]);
      } catch {
        this.skip(); // no mkfifo here
      }
      const places = tempFolder('scratch');
      const place = await makeLivePlace({
        manifest: manifestAt(folder, undefined),
        cwd: folder,
        baseFolder: places,
        short: 's1',
      });
      assert.equal(place.worktree, undefined);
      assert.ok(place.root.startsWith(fs.realpathSync(places)));
      assert.equal(fs.readFileSync(path.join(place.root, 'a.txt'), 'utf8'), 'hello\n');
      assert.equal(fs.existsSync(path.join(place.root, 'etc')), false);
      assert.equal(fs.existsSync(path.join(place.root, 'sub', 'passwd')), false);
      assert.equal(fs.existsSync(path.join(place.root, 'pipe')), false);
      // A link inside the folder leads to the copy, never back into the original.
      assert.equal(fs.realpathSync(path.join(place.root, 'sub', 'inside')), path.join(place.root, 'a.txt'));
      const said = place.notices.join('\n');
      assert.match(said, /scratch copy/);
      assert.match(said, /etc \(a link that leads out of the folder\)/);
      assert.match(said, /pipe \(a FIFO\)/);
    });

    it('refuses a folder too large or too deep for a scratch copy, leaving nothing behind', async () => {
      const folder = tempFolder('big-src');
      for (let index = 0; index < 5; index++) fs.writeFileSync(path.join(folder, `f${index}.txt`), 'x'.repeat(100));
      const places = tempFolder('big');
      const base = { manifest: manifestAt(folder, undefined), cwd: folder, baseFolder: places, short: 'big' };
      await assert.rejects(
        makeLivePlace({ ...base, limits: { files: 3, bytes: 1_000_000, depth: 10 } }),
        (error: unknown) => error instanceof ScratchCopyError && /too large for a scratch copy/.test(error.message),
      );
      await assert.rejects(makeLivePlace({ ...base, limits: { files: 100, bytes: 250, depth: 10 } }), ScratchCopyError);
      let deep = folder;
      for (let index = 0; index < 6; index++) fs.mkdirSync((deep = path.join(deep, 'd')));
      await assert.rejects(
        makeLivePlace({ ...base, limits: { files: 100, bytes: 1_000_000, depth: 3 } }),
        /nested more than 3 folders deep/,
      );
      assert.deepEqual(fs.readdirSync(places), []);
    });
  });

  describe('the run', () => {
    let server: FakeModelServer;
    let store: SqlJsStore;
    let repository: { root: string; commit: string };
    let loaded: LoadedRecording;
    const outside = () => path.join(path.dirname(repository.root), `${path.basename(repository.root)}-escape.txt`);

    before(async () => {
      repository = committedRepository({ 'a.txt': 'hello\n' });
      const escaping: ScenarioInput = {
        name: 'escaping-paths',
        turns: [
          {
            toolCalls: [
              // Absolute, into the recorded workspace: inside it then, outside the replay's place now.
              {
                id: 'w1',
                name: 'write_file',
                arguments: { path: path.join(repository.root, 'a.txt'), content: 'then\n' },
              },
              { id: 'w2', name: 'write_file', arguments: { path: `../${path.basename(outside())}`, content: 'out\n' } },
              { id: 'r1', name: 'read_file', arguments: { path: '../../../../../../etc/hostname' } },
            ],
          },
          { text: 'Done.' },
        ],
      };
      server = await FakeModelServer.start({ scenario: escaping });
      store = (await openStore(tempDir())).store;
      await recordIn(server, store, repository.root, 'write where you should not');
      loaded = await loadRecording(store.recordings, 'c1');
    });
    after(async () => {
      await store?.close();
      await server?.close();
    });

    it('never lets a recorded path leave the place, whatever the approvals say', async () => {
      assert.equal(fs.readFileSync(path.join(repository.root, 'a.txt'), 'utf8'), 'then\n', 'the recorded run wrote it');
      fs.writeFileSync(path.join(repository.root, 'a.txt'), 'the user since\n');
      fs.rmSync(outside(), { force: true });
      const place = await makeLivePlace({
        manifest: loaded.recording.manifest,
        cwd: repository.root,
        baseFolder: tempFolder('escape-places'),
        short: 'esc',
      });
      const outcome = await replayWithLiveTools(loaded, {
        tools: createFileTools(new NodeWorkspace(place.root)),
        root: place.root,
        approvals: APPROVE_ALL,
        readFile: async () => undefined,
      });
      assert.equal(
        fs.readFileSync(path.join(repository.root, 'a.txt'), 'utf8'),
        'the user since\n',
        'the original workspace untouched',
      );
      assert.equal(fs.existsSync(outside()), false);
      assert.equal(fs.existsSync(path.join(path.dirname(place.root), path.basename(outside()))), false);
      const absolute = outcome.tools.find(
        (tool) => tool.step === loaded.recording.steps.find((step) => step.kind === 'tool')!.step,
      );
      assert.equal(absolute?.same, false);
      assert.match(absolute!.live.output, /outside this replay's place|outside the workspace/);
      assert.equal(fs.readFileSync(path.join(place.root, 'a.txt'), 'utf8'), 'hello\n');
      for (const tool of outcome.tools) assert.equal(tool.live.isError, true, `${tool.call}: ${tool.live.output}`);
    });

    it('stops a path that leaves the place even when the tool itself would not (a naive write tool)', async () => {
      fs.writeFileSync(path.join(repository.root, 'a.txt'), 'the user since\n');
      const place = await makeLivePlace({
        manifest: loaded.recording.manifest,
        cwd: repository.root,
        baseFolder: tempFolder('naive-places'),
        short: 'naive',
      });
      const real = createFileTools(new NodeWorkspace(place.root));
      const written: string[] = [];
      const naive = real.map((tool) =>
        tool.name === 'write_file'
          ? {
              ...tool,
              execute: async (input: unknown) => {
                const { path: target, content } = input as { path: string; content: string };
                const absolute = path.resolve(place.root, target);
                written.push(absolute);
                fs.writeFileSync(absolute, content);
                return 'written';
              },
            }
          : tool,
      );
      const outcome = await replayWithLiveTools(loaded, {
        tools: naive,
        root: place.root,
        approvals: APPROVE_ALL,
        readFile: async () => undefined,
      });
      assert.deepEqual(written, [], 'the naive tool never ran on a path outside the place');
      assert.equal(fs.readFileSync(path.join(repository.root, 'a.txt'), 'utf8'), 'the user since\n');
      assert.match(outcome.tools[0]!.live.output, /is outside this replay's place/);
    });

    it('refuses --yes for an imported run, and asks (no terminal: denies) every change without it', async () => {
      const recording = await store.recordings.getRecording('c1');
      const content = await reachableContent(recording!, (ref) => store.recordings.getContent(ref));
      const file = path.join(tempFolder('imported'), 'run.json');
      fs.writeFileSync(file, JSON.stringify({ recording, content: Object.fromEntries(content) }));
      const places = tempFolder('imported-places');
      const env = { HOME: tempFolder('imported-home'), OPENAGENT_WORKTREES: places };
      const refusedOut = collector();
      const refusedErr = collector();
      const refused = await runReplayCommand('replay', [file, '--live-tools', '--yes'], env, {
        stdout: refusedOut,
        stderr: refusedErr,
      });
      assert.equal(refused, 1);
      assert.match(refusedErr.text, /imported from another machine: it never runs a live tool without asking/);
      assert.deepEqual(fs.readdirSync(places), [], 'nothing made');

      const stdout = collector();
      const stderr = collector();
      fs.writeFileSync(path.join(repository.root, 'a.txt'), 'the user since\n');
      const asked = await runReplayCommand('replay', [file, '--live-tools'], env, { stdout, stderr });
      assert.equal(asked, 1, stdout.text + stderr.text);
      assert.match(stderr.text, /denied write_file .*stdin is not a terminal/);
      assert.match(stdout.text, /Worktree: /);
      assert.equal(fs.readFileSync(path.join(repository.root, 'a.txt'), 'utf8'), 'the user since\n');
    });

    it('rejects --live-tools with --from, and a step out of range, before making anything', async () => {
      const recording = await store.recordings.getRecording('c1');
      const content = await reachableContent(recording!, (ref) => store.recordings.getContent(ref));
      const file = path.join(tempFolder('flags'), 'run.json');
      fs.writeFileSync(file, JSON.stringify({ recording, content: Object.fromEntries(content) }));
      const places = tempFolder('flags-places');
      const env = { HOME: tempFolder('flags-home'), OPENAGENT_WORKTREES: places };
      const err = collector();
      assert.equal(
        await runReplayCommand('replay', [file, '--live-tools', '--from', '2'], env, {
          stdout: collector(),
          stderr: err,
        }),
        2,
      );
      assert.match(err.text, /--live-tools replays a recorded run/);
      const range = collector();
      assert.equal(
        await runReplayCommand('replay', [file, '--live-tools', '--until', '999'], env, {
          stdout: collector(),
          stderr: range,
        }),
        1,
      );
      assert.match(range.text, /Step 999 is out of range/);
      assert.deepEqual(fs.readdirSync(places), []);
    });
  });
});
