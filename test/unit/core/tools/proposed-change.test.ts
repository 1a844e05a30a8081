import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { proposedChange } from '../../../../src/core/tools/builtin/proposed-change';
import { NodeWorkspace } from '../../../../src/node/node-workspace';

describe('proposed change (Show Details diff)', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-proposal-'));
  fs.writeFileSync(path.join(root, 'a.txt'), 'one\r\ntwo\r\n');
  const workspace = new NodeWorkspace(root);

  it('computes the text after an edit without writing it', async () => {
    const change = await proposedChange(workspace, 'edit_file', {
      path: 'a.txt',
      edits: [{ oldText: 'two', newText: '2' }],
    });
    assert.deepEqual(change, {
      ok: true,
      path: path.join(root, 'a.txt'),
      before: 'one\r\ntwo\r\n',
      after: 'one\r\n2\r\n',
    });
    assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'one\r\ntwo\r\n');
  });

  it('shows a new file against nothing, and says why a call would fail', async () => {
    assert.deepEqual(await proposedChange(workspace, 'write_file', { path: 'b.txt', content: 'hi' }), {
      ok: true,
      path: path.join(root, 'b.txt'),
      before: undefined,
      after: 'hi',
    });
    const missing = await proposedChange(workspace, 'edit_file', {
      path: 'a.txt',
      edits: [{ oldText: 'x', newText: 'y' }],
    });
    assert.equal(missing?.ok, false);
    const outside = await proposedChange(workspace, 'write_file', { path: '../escape.txt', content: 'x' });
    assert.match(outside?.ok === false ? outside.reason : '', /outside the workspace/);
    assert.equal(await proposedChange(workspace, 'bash', { command: 'ls' }), undefined);
  });
});
