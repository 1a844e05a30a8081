/**
 * Issue 32, item 6 (the file tools' side): a workspace file with other hard links — a package
 * manager's shared store outside the workspace, or a link made earlier to a protected file
 * (`.openagent/agent.yaml`, `.git/config`). The file tools write such a file copy-on-write: a new
 * file takes the workspace name (same mode, encoding and line endings), the other names keep
 * their old content, and the tool result says the link was broken. Everything goes through the
 * tools the product builds, over the checkpointed workspace the CLI gives them.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { reviewedFilesOf } from '../../src/core/review/workspace-reviewed-files';
import { createFileTools } from '../../src/core/tools/builtin/file-tools';
import type { AnyTool } from '../../src/core/tools/tool';
import { runToolSafely } from '../unit/core/tools/run-tool';
import { BYTE_PATH_MIN_BYTES } from '../../src/core/workspace/byte-edit';
import { Checkpoints } from '../../src/core/workspace/checkpoints';
import { ContainedFiles } from '../../src/node/contained-files';
import { NodeWorkspace } from '../../src/node/node-workspace';

interface Box {
  root: string;
  outside: string;
  checkpoints: Checkpoints;
  workspace: NodeWorkspace;
  tool(name: string): AnyTool;
}

function box(descriptorPaths?: boolean): Box {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-links-')));
  const root = path.join(base, 'workspace');
  const outside = path.join(base, 'store');
  fs.mkdirSync(root);
  fs.mkdirSync(outside);
  const workspace = new NodeWorkspace(root, descriptorPaths === undefined ? {} : { descriptorPaths });
  const checkpoints = new Checkpoints(workspace);
  checkpoints.beginTurn();
  const tools = createFileTools(checkpoints.tracked());
  return { root, outside, checkpoints, workspace, tool: (name) => tools.find((tool) => tool.name === name)! };
}

const run = runToolSafely;

/** `other` is made first, then `name` inside the workspace as a second name for the same file. */
function link(other: string, name: string, content: string | Buffer, mode = 0o644): void {
  fs.mkdirSync(path.dirname(other), { recursive: true });
  fs.mkdirSync(path.dirname(name), { recursive: true });
  fs.writeFileSync(other, content, { mode });
  fs.chmodSync(other, mode);
  fs.linkSync(other, name);
  assert.equal(fs.statSync(name).nlink, 2);
}

const BROKEN = /hard link.*new file.*other names still have the old content/s;

describe('adversarial: files with more than one hard link', () => {
  for (const descriptorPaths of [undefined, false]) {
    const way = descriptorPaths === false ? ' (the path-and-check way of systems without /proc)' : '';

    it(`write_file on a link into a shared store outside leaves the store alone${way}`, async () => {
      const b = box(descriptorPaths);
      const store = path.join(b.outside, 'lodash', 'index.js');
      link(store, path.join(b.root, 'node_modules', 'lodash', 'index.js'), 'module.exports = 1;\n');
      const result = await run(b.tool('write_file'), {
        path: 'node_modules/lodash/index.js',
        content: 'module.exports = 2;\n',
      });
      assert.equal(result.isError, false, result.output);
      assert.match(result.output, BROKEN);
      assert.equal(fs.readFileSync(store, 'utf8'), 'module.exports = 1;\n');
      assert.equal(fs.readFileSync(path.join(b.root, 'node_modules/lodash/index.js'), 'utf8'), 'module.exports = 2;\n');
      assert.equal(fs.statSync(store).nlink, 1);
    });

    it(`edit_file on a link to .openagent/agent.yaml leaves the policy file alone${way}`, async () => {
      const b = box(descriptorPaths);
      const policy = path.join(b.root, '.openagent', 'agent.yaml');
      link(policy, path.join(b.root, 'notes.yaml'), 'approvals:\n  bash: ask\n');
      const result = await run(b.tool('edit_file'), {
        path: 'notes.yaml',
        edits: [{ oldText: 'bash: ask', newText: 'bash: allow' }],
      });
      assert.equal(result.isError, false, result.output);
      assert.match(result.output, BROKEN);
      assert.equal(fs.readFileSync(policy, 'utf8'), 'approvals:\n  bash: ask\n');
      assert.equal(fs.readFileSync(path.join(b.root, 'notes.yaml'), 'utf8'), 'approvals:\n  bash: allow\n');
    });
  }

  it('write_file and edit_file on a link to .git/config leave the git config alone', async () => {
    const b = box();
    const config = path.join(b.root, '.git', 'config');
    const original = '[core]\n\tbare = false\n';
    link(config, path.join(b.root, 'docs', 'config.txt'), original);
    const edited = await run(b.tool('edit_file'), {
      path: 'docs/config.txt',
      edits: [{ oldText: 'bare = false', newText: 'fsmonitor = touch PROOF' }],
    });
    assert.match(edited.output, BROKEN);
    assert.equal(fs.readFileSync(config, 'utf8'), original);
    // Written again: now a file of its own, nothing more to say, and still nothing reaches .git.
    const written = await run(b.tool('write_file'), { path: 'docs/config.txt', content: '[core]\n\tpager = x\n' });
    assert.doesNotMatch(written.output, /hard link/);
    assert.equal(fs.readFileSync(config, 'utf8'), original);
  });

  it('keeps an executable script executable, and its other name unchanged', async () => {
    const b = box();
    const other = path.join(b.outside, 'bin', 'tool.sh');
    link(other, path.join(b.root, 'tool.sh'), '#!/bin/sh\necho one\n', 0o755);
    await run(b.tool('edit_file'), { path: 'tool.sh', edits: [{ oldText: 'one', newText: 'two' }] });
    assert.equal(fs.statSync(path.join(b.root, 'tool.sh')).mode & 0o777, 0o755);
    assert.equal(fs.readFileSync(other, 'utf8'), '#!/bin/sh\necho one\n');
  });

  it('keeps UTF-16 with a BOM and CRLF line endings in the new file', async () => {
    const b = box();
    const other = path.join(b.outside, 'win.txt');
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('first\r\nsecond\r\n', 'utf16le')]);
    link(other, path.join(b.root, 'win.txt'), bytes);
    const result = await run(b.tool('edit_file'), {
      path: 'win.txt',
      edits: [{ oldText: 'second', newText: 'changed' }],
    });
    assert.match(result.output, BROKEN);
    const expected = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('first\r\nchanged\r\n', 'utf16le')]);
    assert.deepEqual(fs.readFileSync(path.join(b.root, 'win.txt')), expected);
    assert.deepEqual(fs.readFileSync(other), bytes);
  });

  it('a big file edited in its bytes leaves the other name alone too', async () => {
    const b = box();
    const other = path.join(b.outside, 'big.js');
    const content = `${'// filler line of a big bundled file\n'.repeat(Math.ceil(BYTE_PATH_MIN_BYTES / 36) + 10)}const MARK = 1;\n`;
    link(other, path.join(b.root, 'big.js'), content);
    const result = await run(b.tool('edit_file'), {
      path: 'big.js',
      edits: [{ oldText: 'const MARK = 1;', newText: 'const MARK = 2;' }],
    });
    assert.match(result.output, BROKEN);
    assert.equal(fs.readFileSync(other, 'utf8'), content);
    assert.match(fs.readFileSync(path.join(b.root, 'big.js'), 'utf8'), /const MARK = 2;\n$/);
  });

  it('says how many other names there were, and none of them change', async () => {
    const b = box();
    const first = path.join(b.outside, 'a.txt');
    link(first, path.join(b.root, 'shared.txt'), 'same\n');
    fs.linkSync(first, path.join(b.outside, 'b.txt'));
    const result = await run(b.tool('write_file'), { path: 'shared.txt', content: 'mine\n' });
    assert.match(result.output, /2 other hard links/);
    assert.equal(fs.readFileSync(first, 'utf8'), 'same\n');
    assert.equal(fs.readFileSync(path.join(b.outside, 'b.txt'), 'utf8'), 'same\n');
  });

  it('reverting a turn writes copy-on-write too: a name linked after the turn keeps its content', async () => {
    const b = box();
    fs.writeFileSync(path.join(b.root, 'notes.txt'), 'before\n');
    await run(b.tool('write_file'), { path: 'notes.txt', content: 'during the turn\n' });
    await run(b.tool('write_file'), { path: 'made.txt', content: 'created by the turn\n' });
    // A command links the turn's files to names elsewhere (say, a protected file's place).
    fs.linkSync(path.join(b.root, 'notes.txt'), path.join(b.outside, 'linked-notes.txt'));
    fs.linkSync(path.join(b.root, 'made.txt'), path.join(b.outside, 'linked-made.txt'));
    const result = await b.checkpoints.revert(1);
    assert.deepEqual(result.failed, []);
    assert.equal(fs.readFileSync(path.join(b.root, 'notes.txt'), 'utf8'), 'before\n');
    assert.equal(fs.existsSync(path.join(b.root, 'made.txt')), false);
    assert.equal(fs.readFileSync(path.join(b.outside, 'linked-notes.txt'), 'utf8'), 'during the turn\n');
    assert.equal(fs.readFileSync(path.join(b.outside, 'linked-made.txt'), 'utf8'), 'created by the turn\n');
  });

  it("undoing a reviewed hunk writes copy-on-write: the other name keeps the agent's text", async () => {
    const b = box();
    const other = path.join(b.outside, 'kept.txt');
    link(other, path.join(b.root, 'kept.txt'), 'agent text\n');
    const files = reviewedFilesOf(b.workspace);
    assert.equal(await files.replace(path.join(b.root, 'kept.txt'), 'agent text\n', 'user text\n'), true);
    assert.equal(fs.readFileSync(path.join(b.root, 'kept.txt'), 'utf8'), 'user text\n');
    assert.equal(fs.readFileSync(other, 'utf8'), 'agent text\n');
  });

  it('a FIFO put where a file was is refused at once, never waited on', async () => {
    const b = box();
    const fifo = path.join(b.root, 'pipe.txt');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    // read_file goes through the workspace's read, opened without blocking.
    await assert.rejects(b.workspace.readText(fifo), /not a regular file/);
  });

  // VS Code's WorkspaceEdit and save write into the file in place; its adapter first calls
  // separate(). Here the in-place save is a plain write into the file by its name.
  for (const descriptorPaths of [undefined, false]) {
    it(`separate() then an in-place save: the other name unchanged, the bytes, mode and times kept${descriptorPaths === false ? ' (path-and-check way)' : ''}`, async () => {
      const b = box(descriptorPaths);
      const other = path.join(b.root, '.openagent', 'agent.yaml');
      const name = path.join(b.root, 'src', 'agent-copy.yaml');
      link(other, name, 'approvals: {}\n', 0o640);
      const when = new Date('2024-05-06T07:08:09.123Z');
      fs.utimesSync(name, when, when);
      const contained = new ContainedFiles(b.root, descriptorPaths === undefined ? {} : { descriptorPaths });
      assert.equal(await contained.separate(name), 1);
      const after = fs.statSync(name);
      assert.equal(after.nlink, 1);
      assert.equal(after.mode & 0o777, 0o640);
      assert.equal(after.mtime.getTime(), when.getTime());
      assert.equal(fs.readFileSync(name, 'utf8'), 'approvals: {}\n');
      // Nothing more to separate the second time.
      assert.equal(await contained.separate(name), 0);
      fs.writeFileSync(name, 'approvals: { bash: allow }\n');
      assert.equal(fs.readFileSync(other, 'utf8'), 'approvals: {}\n');
    });
  }
});
