/**
 * Issue 32, item 9: a folder swapped for a symbolic link between the path check and the write.
 * A child process swaps the workspace's `src` folder for a link to a folder outside, over and
 * over, as fast as it can, while the product's own file tools (through the checkpointed
 * workspace the CLI hands them) write, edit and read under `src` thousands of times. Nothing may
 * ever appear outside, even for an instant (a watch on the outside folder sees every file made
 * there), nothing there may change, and no read may return the outside file's content.
 *
 * Counted, not timed: the loop runs until enough calls were made *and* the swapper swapped
 * enough times; the deadline is only a guard against a hang.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createFileTools } from '../../src/core/tools/builtin/file-tools';
import { runToolSafely } from '../unit/core/tools/run-tool';
import { Checkpoints } from '../../src/core/workspace/checkpoints';
import { resolveWorkspacePath } from '../../src/core/workspace/workspace-path';
import { NodeWorkspace } from '../../src/node/node-workspace';

const CALLS = 3_000;
const SWAPS = 300;
const DEADLINE_MS = 8 * 60_000;
const OUTSIDE_MARKER = 'OUTSIDE-MARKER-9f3c';

/**
 * The swapper: `src` (a real folder) is parked, a link to the outside folder takes its name,
 * then everything is put back. Every step may fail (a tool may just have made a new `src`): the
 * state is repaired and the loop goes on. Prints its count of full swaps now and then.
 */
const SWAPPER = String.raw`
const fs = require('node:fs');
const path = require('node:path');
const [root, outside] = process.argv.slice(1);
const src = path.join(root, 'src');
const parked = path.join(root, 'parked');
const link = path.join(root, 'link');
fs.symlinkSync(outside, link);
const attempt = (step) => { try { step(); return true; } catch { return false; } };
let swaps = 0;
for (;;) {
  attempt(() => fs.renameSync(src, parked));
  const linked = attempt(() => fs.renameSync(link, src));
  if (linked) attempt(() => fs.renameSync(src, link));
  if (!attempt(() => fs.renameSync(parked, src)) && fs.existsSync(parked)) {
    // A tool made a new src while the real one was parked: drop the new one (it is inside).
    attempt(() => fs.rmSync(src, { recursive: true, force: true }));
  }
  if (linked && ++swaps % 25 === 0) process.stdout.write(swaps + '\n');
}
`;

const run = runToolSafely;

/** Every name under `folder` with its content (or link target). */
function snapshot(folder: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const name of fs.readdirSync(folder, { recursive: true, encoding: 'utf8' })) {
    const full = path.join(folder, name);
    const stat = fs.lstatSync(full);
    result[name] = stat.isSymbolicLink()
      ? `link -> ${fs.readlinkSync(full)}`
      : stat.isDirectory()
        ? 'dir'
        : fs.readFileSync(full, 'utf8');
  }
  return result;
}

describe('adversarial: writes and reads while a folder is swapped for a link', function () {
  this.timeout(DEADLINE_MS + 60_000);
  let swapper: ChildProcess | undefined;
  let watcher: fs.FSWatcher | undefined;

  afterEach(() => {
    watcher?.close();
    if (swapper?.exitCode === null) swapper.kill('SIGKILL');
  });

  it(`nothing lands outside and nothing outside is read, over ${CALLS} calls and ${SWAPS}+ swaps`, async () => {
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-races-')));
    const root = path.join(base, 'workspace');
    const outside = path.join(base, 'outside');
    fs.mkdirSync(path.join(root, 'src'), { recursive: true });
    fs.mkdirSync(path.join(outside, 'deep'), { recursive: true });
    // The same names inside and outside: a write or read redirected through the link hits these.
    for (const name of ['f.txt', 'e.txt', 'secret.txt', 'deep/g.txt'])
      fs.writeFileSync(path.join(outside, name), `${OUTSIDE_MARKER}\n`);
    fs.writeFileSync(path.join(root, 'src', 'secret.txt'), 'inside\n');
    const outsideBefore = snapshot(outside);

    // Every file made, changed, renamed or removed outside, however briefly.
    const landed: string[] = [];
    watcher = fs.watch(outside, (event, name) => landed.push(`${event} ${name}`));
    const watchDeep = fs.watch(path.join(outside, 'deep'), (event, name) => landed.push(`${event} deep/${name}`));

    const checkpoints = new Checkpoints(new NodeWorkspace(root));
    checkpoints.beginTurn();
    const tools = createFileTools(checkpoints.tracked());
    const tool = (name: string) => tools.find((candidate) => candidate.name === name)!;

    swapper = spawn(process.execPath, ['-e', SWAPPER, root, outside], { stdio: ['ignore', 'pipe', 'inherit'] });
    let swaps = 0;
    swapper.stdout!.on('data', (chunk: Buffer) => {
      const last = chunk.toString().trim().split('\n').pop();
      if (last) swaps = Number(last);
    });

    const deadline = Date.now() + DEADLINE_MS;
    let calls = 0;
    let written = 0;
    let read = 0;
    const leaked: string[] = [];
    try {
      while (calls < CALLS || swaps < SWAPS) {
        assert.ok(Date.now() < deadline, `guard: only ${calls} calls and ${swaps} swaps before the deadline`);
        assert.equal(swapper.exitCode, null, 'the swapper stopped');
        const turn = calls % 4;
        calls += 1;
        if (turn === 0) {
          const result = await run(tool('write_file'), { path: 'src/f.txt', content: `inside ${calls}\n` });
          if (!result.isError) written += 1;
        } else if (turn === 1) {
          const result = await run(tool('write_file'), { path: 'src/deep/g.txt', content: `inside ${calls}\n` });
          if (!result.isError) written += 1;
        } else if (turn === 2) {
          await run(tool('write_file'), { path: 'src/e.txt', content: 'inside before\n' });
          const result = await run(tool('edit_file'), {
            path: 'src/e.txt',
            edits: [{ oldText: 'before', newText: `after ${calls}` }],
          });
          if (!result.isError) written += 1;
          if (result.output.includes(OUTSIDE_MARKER)) leaked.push(result.output);
        } else {
          const result = await run(tool('read_file'), { path: 'src/secret.txt' });
          if (!result.isError) read += 1;
          if (result.output.includes(OUTSIDE_MARKER)) leaked.push(result.output);
        }
        if (landed.length > 0) break;
      }
    } finally {
      swapper.kill('SIGKILL');
      watchDeep.close();
    }

    assert.deepEqual(landed, [], 'files appeared or changed outside the workspace');
    assert.deepEqual(leaked, [], 'a read returned the outside content');
    assert.deepEqual(snapshot(outside), outsideBefore);
    // The race was real: writes and reads went through between swaps, and many were refused.
    assert.ok(written > 0 && read > 0, `written ${written}, read ${read}`);
    assert.ok(written + read < calls, 'no call was ever refused: the swap never met a call');
  });
});

/**
 * The same swap, made once at the worst moment (after the path was checked, before the call):
 * for every operation of the Node workspace, with /proc descriptors and the path-and-check way.
 */
describe('adversarial: one swap between the check and the use', () => {
  function setUp(descriptorPaths: boolean | undefined) {
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-swap-')));
    const root = path.join(base, 'workspace');
    const outside = path.join(base, 'outside');
    fs.mkdirSync(path.join(root, 'a', 'b', 'c'), { recursive: true });
    fs.mkdirSync(path.join(outside, 'c'), { recursive: true });
    for (const name of ['victim.txt', 'c/victim.txt'])
      fs.writeFileSync(path.join(outside, name), `${OUTSIDE_MARKER}\n`);
    fs.writeFileSync(path.join(root, 'a', 'b', 'victim.txt'), 'inside\n');
    fs.writeFileSync(path.join(root, 'a', 'b', 'c', 'victim.txt'), 'inside\n');
    const workspace = new NodeWorkspace(root, descriptorPaths === undefined ? {} : { descriptorPaths });
    /** `a/b` becomes a link to the outside folder. */
    const swap = () => {
      fs.renameSync(path.join(root, 'a', 'b'), path.join(root, 'parked'));
      fs.symlinkSync(outside, path.join(root, 'a', 'b'));
    };
    return { root, outside, workspace, swap, before: snapshot(outside) };
  }

  for (const descriptorPaths of [undefined, false]) {
    const way = descriptorPaths === false ? ' (path-and-check way)' : '';

    it(`a write into a swapped folder fails and lands nowhere outside${way}`, async () => {
      const box = setUp(descriptorPaths);
      const checked = await resolveWorkspacePath(box.root, 'a/b/victim.txt', box.workspace);
      box.swap();
      await assert.rejects(box.workspace.writeText(checked, 'pwned\n'), /symbolic link|not a folder|changed/);
      assert.deepEqual(snapshot(box.outside), box.before);
    });

    it(`a write below a swapped folder, two levels down, fails${way}`, async () => {
      const box = setUp(descriptorPaths);
      const checked = await resolveWorkspacePath(box.root, 'a/b/c/victim.txt', box.workspace);
      box.swap();
      await assert.rejects(box.workspace.writeUtf8Bytes(checked, [Buffer.from('pwned\n')]));
      assert.deepEqual(snapshot(box.outside), box.before);
    });

    it(`a new folder under a swapped folder is not made outside${way}`, async () => {
      const box = setUp(descriptorPaths);
      const checked = await resolveWorkspacePath(box.root, 'a/b/new/deeper/file.txt', box.workspace);
      box.swap();
      await assert.rejects(box.workspace.writeText(checked, 'pwned\n'));
      assert.deepEqual(snapshot(box.outside), box.before);
    });

    it(`a read of a swapped folder fails instead of reading outside${way}`, async () => {
      const box = setUp(descriptorPaths);
      const checked = await resolveWorkspacePath(box.root, 'a/b/victim.txt', box.workspace);
      box.swap();
      const read = await box.workspace.readText(checked).then(
        (decoded) => decoded.text,
        (error: Error) => error.message,
      );
      assert.doesNotMatch(read, new RegExp(OUTSIDE_MARKER));
      await assert.rejects(box.workspace.readBytes(checked), /outside the workspace|symbolic link/);
    });

    it(`a delete (a turn's revert) through a swapped folder removes nothing outside${way}`, async () => {
      const box = setUp(descriptorPaths);
      const checked = await resolveWorkspacePath(box.root, 'a/b/victim.txt', box.workspace);
      box.swap();
      await box.workspace.delete(checked).catch(() => undefined);
      assert.deepEqual(snapshot(box.outside), box.before);
    });

    it(`a folder replaced by a file is refused, and nothing is written${way}`, async () => {
      const box = setUp(descriptorPaths);
      const checked = await resolveWorkspacePath(box.root, 'a/b/c/new.txt', box.workspace);
      fs.rmSync(path.join(box.root, 'a', 'b', 'c'), { recursive: true });
      fs.writeFileSync(path.join(box.root, 'a', 'b', 'c'), 'a file now\n');
      await assert.rejects(box.workspace.writeText(checked, 'x\n'), /not a folder/);
      assert.equal(fs.readFileSync(path.join(box.root, 'a', 'b', 'c'), 'utf8'), 'a file now\n');
    });
  }

  it('paths outside given straight to the workspace are refused, read or written', async () => {
    const box = setUp(undefined);
    for (const absolute of [
      path.join(box.outside, 'victim.txt'),
      path.join(box.root, '..', 'outside', 'victim.txt'),
      box.root,
    ]) {
      await assert.rejects(box.workspace.writeText(absolute, 'pwned\n'), /outside the workspace|workspace folder/);
      await assert.rejects(box.workspace.readText(absolute), /outside the workspace|workspace folder/);
    }
    assert.deepEqual(snapshot(box.outside), box.before);
  });

  it('a workspace opened through a linked path still reads and writes its own files', async () => {
    const box = setUp(undefined);
    const linked = path.join(path.dirname(box.root), 'linked-root');
    fs.symlinkSync(box.root, linked);
    const workspace = new NodeWorkspace(linked);
    await workspace.writeText(path.join(linked, 'a', 'b', 'through.txt'), 'ok\n');
    assert.equal(fs.readFileSync(path.join(box.root, 'a', 'b', 'through.txt'), 'utf8'), 'ok\n');
    assert.equal((await workspace.readText(path.join(linked, 'a', 'b', 'through.txt'))).text, 'ok\n');
  });
});
