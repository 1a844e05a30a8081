/**
 * Issue 32, items 6 and 9, attacked with names and things that are not plain files: the file
 * tools (through the checkpointed workspace the CLI hands them) and the Node workspace port, with
 * a FIFO, a socket or a device where a file was expected, the last name made a link after the
 * check, odd and overlong names, a deep tree, the workspace folder itself replaced by a link, a
 * revert through a swapped folder, and a disk that fills up mid-write. Each must fail with a
 * clear message naming the file (or work), hang nothing, and leave what was there intact.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { createFileTools } from '../../src/core/tools/builtin/file-tools';
import type { AnyTool } from '../../src/core/tools/tool';
import { Checkpoints } from '../../src/core/workspace/checkpoints';
import { resolveWorkspacePath } from '../../src/core/workspace/workspace-path';
import { NodeWorkspace } from '../../src/node/node-workspace';

const OUTSIDE = 'OUTSIDE-MARKER-c41d\n';

function setUp() {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-odd-')));
  const root = path.join(base, 'workspace');
  const outside = path.join(base, 'outside');
  fs.mkdirSync(root);
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'v.txt'), OUTSIDE);
  const workspace = new NodeWorkspace(root);
  const checkpoints = new Checkpoints(workspace);
  checkpoints.beginTurn();
  const tools = createFileTools(checkpoints.tracked());
  const call = async (name: string, input: unknown): Promise<{ output: string; isError: boolean }> => {
    const tool: AnyTool = tools.find((candidate) => candidate.name === name)!;
    try {
      const result = await tool.execute(tool.inputSchema.parse(input), {
        conversationId: 'c',
        agentId: 'lead',
        toolCallId: 't',
        signal: new AbortController().signal,
      });
      return typeof result === 'string'
        ? { output: result, isError: false }
        : { output: result.output, isError: Boolean(result.isError) };
    } catch (error) {
      return { output: error instanceof Error ? error.message : String(error), isError: true };
    }
  };
  const at = (name: string) => path.join(root, name);
  return { base, root, outside, workspace, checkpoints, call, at };
}

const notFile = /is not a regular file/;

describe('adversarial: odd names and things that are not files', function () {
  this.timeout(60_000);

  it('a FIFO where a file was expected: read, write and edit refuse at once, the FIFO stays', async function () {
    if (spawnSync('mkfifo', ['--version']).status !== 0) this.skip();
    const box = setUp();
    spawnSync('mkfifo', [box.at('pipe.txt')]);
    for (const [name, input] of [
      ['read_file', { path: 'pipe.txt' }],
      ['write_file', { path: 'pipe.txt', content: 'x' }],
      ['edit_file', { path: 'pipe.txt', edits: [{ oldText: 'a', newText: 'b' }] }],
    ] as const) {
      const result = await box.call(name, input);
      assert.equal(result.isError, true, `${name}: ${result.output}`);
      assert.match(result.output, notFile);
      assert.doesNotMatch(result.output, /\/proc\/self/);
    }
    assert.ok(fs.lstatSync(box.at('pipe.txt')).isFIFO());
  });

  it('a socket where a file was expected: refused as no regular file, named by its path', async () => {
    const box = setUp();
    const server = net.createServer().listen(box.at('sock.txt'));
    await new Promise((resolve) => server.on('listening', resolve));
    try {
      for (const [name, input] of [
        ['read_file', { path: 'sock.txt' }],
        ['write_file', { path: 'sock.txt', content: 'x' }],
      ] as const) {
        const result = await box.call(name, input);
        assert.equal(result.isError, true, result.output);
        assert.match(result.output, new RegExp(`${box.at('sock.txt')} is not a regular file`));
      }
    } finally {
      server.close();
    }
  });

  it('a character device (/dev/zero made in the workspace): refused without reading it', async function () {
    const box = setUp();
    if (spawnSync('mknod', [box.at('zero.txt'), 'c', '1', '5']).status !== 0) this.skip();
    const result = await box.call('read_file', { path: 'zero.txt' });
    assert.equal(result.isError, true, result.output);
    assert.match(result.output, notFile);
  });

  it('the last name made a link to outside after the check: the write replaces the link only', async () => {
    const box = setUp();
    fs.writeFileSync(box.at('last.txt'), 'inside\n');
    const checked = await resolveWorkspacePath(box.root, 'last.txt', box.workspace);
    fs.rmSync(box.at('last.txt'));
    fs.symlinkSync(path.join(box.outside, 'v.txt'), box.at('last.txt'));
    await assert.rejects(box.workspace.readText(checked), /symbolic link/);
    await box.workspace.writeText(checked, 'new\n');
    assert.equal(fs.readFileSync(path.join(box.outside, 'v.txt'), 'utf8'), OUTSIDE);
    assert.equal(fs.readFileSync(box.at('last.txt'), 'utf8'), 'new\n');
    assert.ok(!fs.lstatSync(box.at('last.txt')).isSymbolicLink());
  });

  it('a name with a line break and a 255-byte name are written inside; 256 bytes fail clearly', async () => {
    const box = setUp();
    assert.equal((await box.call('write_file', { path: 'a\nb.txt', content: 'x\n' })).isError, false);
    assert.equal(fs.readFileSync(box.at('a\nb.txt'), 'utf8'), 'x\n');
    assert.equal((await box.call('write_file', { path: 'é'.repeat(127) + 'x', content: 'y\n' })).isError, false);
    const long = await box.call('write_file', { path: `sub/${'n'.repeat(256)}`, content: 'z\n' });
    assert.equal(long.isError, true);
    assert.match(long.output, /name too long/);
    assert.match(long.output, new RegExp(box.at('sub')));
    assert.deepEqual(fs.readdirSync(box.at('sub')), []);
  });

  it('a tree 1,000 folders deep: written, read and listed inside', async () => {
    const box = setUp();
    const deep = `${Array(1_000).fill('d').join('/')}/f.txt`;
    assert.equal((await box.call('write_file', { path: deep, content: 'deep\n' })).isError, false);
    assert.match((await box.call('read_file', { path: deep })).output, /1\tdeep/);
    assert.match((await box.call('glob', { pattern: '**/f.txt' })).output, /\/f\.txt$/);
  });

  it('a turn reverted after its folder was swapped for a link to outside: nothing written outside', async () => {
    const box = setUp();
    fs.mkdirSync(box.at('r'));
    fs.writeFileSync(box.at('r/v.txt'), 'before\n');
    assert.equal((await box.call('write_file', { path: 'r/v.txt', content: 'after\n' })).isError, false);
    fs.renameSync(box.at('r'), box.at('r-parked'));
    fs.symlinkSync(box.outside, box.at('r'));
    const reverted = await box.checkpoints.revert(1);
    assert.equal(reverted.failed.length, 1);
    assert.equal(fs.readFileSync(path.join(box.outside, 'v.txt'), 'utf8'), OUTSIDE);
  });

  it('the workspace folder replaced by a link to another folder: writes, reads and lists refuse', async () => {
    const box = setUp();
    fs.writeFileSync(box.at('v.txt'), 'inside\n');
    await box.call('read_file', { path: 'v.txt' });
    fs.renameSync(box.root, `${box.root}.moved`);
    fs.symlinkSync(box.outside, box.root);
    for (const [name, input] of [
      ['write_file', { path: 'v.txt', content: 'pwned\n' }],
      ['read_file', { path: 'v.txt' }],
      ['list_files', { path: '.' }],
    ] as const) {
      const result = await box.call(name, input);
      assert.equal(result.isError, true, `${name}: ${result.output}`);
      assert.match(result.output, /workspace folder .* was replaced/);
      assert.doesNotMatch(result.output, /OUTSIDE-MARKER/);
    }
    assert.equal(fs.readFileSync(path.join(box.outside, 'v.txt'), 'utf8'), OUTSIDE);
  });

  it('a disk full mid-write (a file size limit): the original is intact and no temp file stays', function () {
    if (spawnSync('bash', ['-c', 'true']).status !== 0) this.skip();
    const box = setUp();
    fs.writeFileSync(box.at('keep.txt'), 'original\n');
    const script = `
      const { NodeWorkspace } = require(${JSON.stringify(path.resolve('src/node/node-workspace.ts'))});
      const root = ${JSON.stringify(box.root)};
      new NodeWorkspace(root).writeText(root + '/keep.txt', 'y'.repeat(256 * 1024)).then(
        () => console.log('WROTE'), (error) => console.log('FAILED ' + error.code));`;
    fs.writeFileSync(path.join(box.base, 'fill.js'), script);
    // SIGXFSZ ignored: past the limit a write fails with EFBIG, as it does with ENOSPC on a full disk.
    const run = spawnSync(
      'bash',
      ['-c', `trap '' XFSZ; ulimit -f 64; exec "${process.execPath}" -r tsx/cjs "${path.join(box.base, 'fill.js')}"`],
      { encoding: 'utf8', env: { ...process.env, TSX_DISABLE_CACHE: '1' } },
    );
    assert.match(run.stdout, /FAILED EFBIG/, run.stderr);
    assert.equal(fs.readFileSync(box.at('keep.txt'), 'utf8'), 'original\n');
    assert.deepEqual(fs.readdirSync(box.root), ['keep.txt']);
  });
});
