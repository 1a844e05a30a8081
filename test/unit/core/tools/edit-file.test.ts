import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createFileTools } from '../../../../src/core/tools/builtin/file-tools';
import { proposedChange } from '../../../../src/core/tools/builtin/proposed-change';
import { Checkpoints } from '../../../../src/core/workspace/checkpoints';
import { NodeWorkspace } from '../../../../src/node/node-workspace';
import type { AnyTool } from '../../../../src/core/tools/tool';

function folder(files: Record<string, string | Buffer>): { root: string; workspace: NodeWorkspace } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-edit-file-')));
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(root, name), content);
  return { root, workspace: new NodeWorkspace(root) };
}

function tool(workspace: NodeWorkspace, name: string): AnyTool {
  return createFileTools(workspace).find((candidate) => candidate.name === name)!;
}

async function call(
  target: AnyTool,
  input: unknown,
  conversationId = 'c1',
): Promise<{ output: string; isError: boolean }> {
  const result = await target.execute(target.inputSchema.parse(input), {
    conversationId,
    agentId: 'lead',
    toolCallId: 't',
    signal: new AbortController().signal,
  });
  return typeof result === 'string'
    ? { output: result, isError: false }
    : { output: result.output, isError: !!result.isError };
}

describe('edit_file', () => {
  it('tells the model which rung matched, and refusals show the closest numbered lines and what differs', async () => {
    const { root, workspace } = folder({ 'app.py': 'def run():\n  start()\n  stop()\n' });
    const edit = tool(workspace, 'edit_file');
    const drifted = await call(edit, { path: 'app.py', edits: [{ oldText: '    start()', newText: '    begin()' }] });
    assert.equal(drifted.isError, false);
    assert.match(drifted.output, /ignoring indentation; newText re-indented to the file's 2 spaces/);
    assert.equal(fs.readFileSync(path.join(root, 'app.py'), 'utf8'), 'def run():\n  begin()\n  stop()\n');

    const missed = await call(edit, { path: 'app.py', edits: [{ oldText: '  begin()\n  halt()', newText: 'x' }] });
    assert.equal(missed.isError, true);
    assert.match(
      missed.output,
      /The closest lines in the file are 1–4:\n1\tdef run\(\):\n2\t {2}begin\(\)\n3\t {2}stop\(\)/,
    );
    assert.match(missed.output, /line 3: the file has "stop" where oldText has "halt"/);
  });

  it('after two refused edits of one small file in a row, suggests write_file; a success starts the count again', async () => {
    const { workspace } = folder({ 'small.ts': 'export const a = 1;\n', 'other.ts': 'x\n' });
    const edit = tool(workspace, 'edit_file');
    const wrong = { path: 'small.ts', edits: [{ oldText: 'const b = 1;', newText: 'const b = 2;' }] };
    assert.doesNotMatch((await call(edit, wrong)).output, /write_file/);
    // Another conversation, and another file, keep their own counts.
    assert.doesNotMatch((await call(edit, wrong, 'c2')).output, /write_file/);
    assert.doesNotMatch((await call(edit, { ...wrong, path: 'other.ts' })).output, /write_file/);
    const second = await call(edit, wrong);
    assert.match(second.output, /2 refused edits of this file in a row.*write_file with the complete new content/s);
    await call(edit, { path: 'small.ts', edits: [{ oldText: 'a = 1', newText: 'a = 2' }] });
    assert.doesNotMatch((await call(edit, wrong)).output, /write_file/);
  });

  it('does not suggest sending a file over 100 KB whole', async () => {
    const { workspace } = folder({ 'big.txt': 'line\n'.repeat(30_000) });
    const edit = tool(workspace, 'edit_file');
    const wrong = { path: 'big.txt', edits: [{ oldText: 'nothing like this', newText: 'x' }] };
    await call(edit, wrong);
    assert.doesNotMatch((await call(edit, wrong)).output, /write_file/);
  });

  it("write_file's approval diff shows the change in the file's own line endings", async () => {
    const { root, workspace } = folder({ 'win.txt': 'one\r\ntwo\r\n' });
    const change = await proposedChange(workspace, 'write_file', { path: 'win.txt', content: 'one\ntwo\nthree\n' });
    assert.deepEqual(change, {
      ok: true,
      path: path.join(root, 'win.txt'),
      before: 'one\r\ntwo\r\n',
      after: 'one\r\ntwo\r\nthree\r\n',
    });
    // edit_file's approval shows the same ladder the tool uses.
    const edit = await proposedChange(workspace, 'edit_file', {
      path: 'win.txt',
      edits: [{ oldText: 'two  ', newText: '2' }],
    });
    assert.equal(edit?.ok && edit.after, 'one\r\n2\r\n');
  });

  it('warns against line-number prefixes in its description, in few words', () => {
    const { workspace } = folder({});
    const description = tool(workspace, 'edit_file').description;
    assert.match(description, /without the line-number prefixes/);
    assert.ok(description.length < 320, `${description.length} characters`);
  });

  it('edits a big file in place the same way as a small one: CRLF, non-ASCII, untouched bytes kept', async () => {
    const filler = 'const naïve = "café";\r\n'.repeat(60_000);
    const { root, workspace } = folder({ 'big.ts': `${filler}// MARKER\r\nlet tail = 1;\r\n${filler}` });
    const edit = tool(workspace, 'edit_file');
    const result = await call(edit, {
      path: 'big.ts',
      edits: [{ oldText: '// MARKER\nlet tail = 1;\n', newText: '// MARKER ✓\nlet tail = 2;\n' }],
    });
    assert.equal(result.output, 'Edited big.ts: 1 replacement.');
    const after = fs.readFileSync(path.join(root, 'big.ts'));
    assert.ok(after.equals(Buffer.from(`${filler}// MARKER ✓\r\nlet tail = 2;\r\n${filler}`)));

    const ambiguous = await call(edit, { path: 'big.ts', edits: [{ oldText: 'const naïve', newText: 'let naïve' }] });
    assert.match(ambiguous.output, /occurs 120000 times \(at lines 1, 2, 3, 4, 5, …\)/);
    assert.ok(fs.readFileSync(path.join(root, 'big.ts')).equals(after));
  });

  it('leaves bytes that are not UTF-8 as they were when it edits a big file elsewhere', async () => {
    const latin1 = Buffer.from('caf\xe9\n', 'latin1');
    const body = Buffer.from('x = 1;\n'.repeat(200_000));
    const { root, workspace } = folder({ 'mixed.txt': Buffer.concat([latin1, body, Buffer.from('y = 2;\n')]) });
    const result = await call(tool(workspace, 'edit_file'), {
      path: 'mixed.txt',
      edits: [{ oldText: 'y = 2;', newText: 'y = 3;' }],
    });
    assert.equal(result.isError, false);
    const after = fs.readFileSync(path.join(root, 'mixed.txt'));
    assert.ok(after.equals(Buffer.concat([latin1, body, Buffer.from('y = 3;\n')])));
  });

  it('records a big-file edit for Revert This Turn like any other write', async () => {
    const { root, workspace } = folder({ 'big.txt': `${'x'.repeat(2 * 1024 * 1024)}\nend\n` });
    const checkpoints = new Checkpoints(workspace);
    const turn = checkpoints.beginTurn();
    const edit = createFileTools(checkpoints.tracked()).find((candidate) => candidate.name === 'edit_file')!;
    await call(edit, { path: 'big.txt', edits: [{ oldText: 'end', newText: 'END' }] });
    assert.ok(fs.readFileSync(path.join(root, 'big.txt'), 'utf8').endsWith('\nEND\n'));
    assert.deepEqual(checkpoints.changes(turn), [{ path: path.join(root, 'big.txt'), change: 'modified' }]);
  });
});
