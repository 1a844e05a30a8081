import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createFileTools } from '../../../../src/core/tools/builtin/file-tools';
import { Checkpoints } from '../../../../src/core/workspace/checkpoints';
import { NodeWorkspace } from '../../../../src/node/node-workspace';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { runTool } from '../tools/run-tool';
import { sessionOn } from '../session/session-harness';

function folder(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-checkpoints-'));
  fs.mkdirSync(path.join(root, 'src'));
  return root;
}

describe('checkpoints', () => {
  it('restore edited files byte for byte (BOM, CRLF, UTF-16) and delete created ones', async () => {
    const root = folder();
    const crlf = Buffer.from('\ufeffline one\r\nline two\r\n', 'utf8');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo\n', 'utf16le')]);
    fs.writeFileSync(path.join(root, 'src', 'crlf.txt'), crlf);
    fs.writeFileSync(path.join(root, 'src', 'wide.txt'), utf16);
    const checkpoints = new Checkpoints(new NodeWorkspace(root));
    const [, , writeFile, editFile] = createFileTools(checkpoints.tracked());
    const turn = checkpoints.beginTurn();
    await runTool(editFile, { path: 'src/crlf.txt', edits: [{ oldText: 'line two', newText: 'line 2' }] });
    await runTool(editFile, { path: 'src/crlf.txt', edits: [{ oldText: 'line one', newText: 'line 1' }] });
    await runTool(writeFile, { path: 'src/wide.txt', content: 'replaced\n' });
    await runTool(writeFile, { path: 'src/new/deep.ts', content: 'export {};\n' });
    assert.deepEqual(
      checkpoints.changes(turn).map((change) => [path.relative(root, change.path), change.change]),
      [
        ['src/crlf.txt', 'modified'],
        ['src/wide.txt', 'modified'],
        ['src/new/deep.ts', 'created'],
      ],
    );
    // "Open Diff": the file as the turn found it; null for a file the turn created.
    assert.equal(checkpoints.beforeText(turn, path.join(root, 'src', 'crlf.txt')), 'line one\r\nline two\r\n');
    assert.equal(checkpoints.beforeText(turn, path.join(root, 'src', 'new', 'deep.ts')), null);
    assert.equal(checkpoints.beforeText(turn, path.join(root, 'src', 'untouched.txt')), undefined);
    const plan = await checkpoints.plan(turn);
    assert.deepEqual(plan?.conflicts, []);
    const result = await checkpoints.revert(turn);
    assert.equal(result.restored.length, 2);
    assert.deepEqual(result.deleted, [path.join(root, 'src', 'new', 'deep.ts')]);
    assert.deepEqual(fs.readFileSync(path.join(root, 'src', 'crlf.txt')), crlf);
    assert.deepEqual(fs.readFileSync(path.join(root, 'src', 'wide.txt')), utf16);
    assert.equal(fs.existsSync(path.join(root, 'src', 'new', 'deep.ts')), false);
    assert.equal(checkpoints.latestTurn(), undefined, 'a reverted turn cannot be reverted twice');
  });

  it('keep turns apart, and report a file changed after the turn as a conflict', async () => {
    const root = folder();
    fs.writeFileSync(path.join(root, 'a.txt'), 'v0\n');
    const checkpoints = new Checkpoints(new NodeWorkspace(root));
    const [, , writeFile] = createFileTools(checkpoints.tracked());
    const first = checkpoints.beginTurn();
    await runTool(writeFile, { path: 'a.txt', content: 'v1\n' });
    const second = checkpoints.beginTurn();
    await runTool(writeFile, { path: 'a.txt', content: 'v2\n' });
    checkpoints.beginTurn(); // a turn that only reads
    assert.equal(checkpoints.latestTurn(), second);
    fs.writeFileSync(path.join(root, 'a.txt'), 'typed by the user\n');
    assert.deepEqual((await checkpoints.plan(second))?.conflicts, [path.join(root, 'a.txt')]);
    await checkpoints.revert(second);
    assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'v1\n');
    assert.equal(checkpoints.latestTurn(), first);
    await checkpoints.revert(first);
    assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'v0\n');
  });

  it('do not copy huge files, and say so instead of pretending to restore them', async () => {
    const root = folder();
    const big = path.join(root, 'big.log');
    fs.writeFileSync(big, 'x');
    fs.truncateSync(big, 60 * 1024 * 1024);
    const checkpoints = new Checkpoints(new NodeWorkspace(root));
    const turn = checkpoints.beginTurn();
    await checkpoints.tracked().writeText(big, 'small now\n');
    const result = await checkpoints.revert(turn);
    assert.deepEqual(result.restored, []);
    assert.match(result.failed[0]!.reason, /60 MB, too large/);
  });
});

describe('Revert This Turn in a conversation', () => {
  it('shows what a turn changed, reverts it on request, and tells the model at its next turn', async () => {
    const root = folder();
    fs.writeFileSync(path.join(root, 'src', 'app.js'), 'const answer = 41;\n');
    const server = await FakeModelServer.start({
      scenario: {
        name: 'edit then revert',
        turns: [
          {
            toolCalls: [
              {
                id: 'e1',
                name: 'edit_file',
                arguments: { path: 'src/app.js', edits: [{ oldText: '41', newText: '42' }] },
              },
              { id: 'w1', name: 'write_file', arguments: { path: 'src/extra.js', content: '// extra\n' } },
            ],
          },
          { text: 'Done.' },
          { text: 'Understood.' },
        ],
      },
    });
    const { session, events, waitDone } = sessionOn(server, {
      approvals: { request: async () => ({ approved: true, source: 'user' }) },
      workspace: () => new NodeWorkspace(root),
      tools: (workspace) => createFileTools(workspace!),
    });
    try {
      await session.submit('bump the answer');
      await waitDone(1);
      const changed = events.find((event) => event.type === 'files_changed');
      assert.deepEqual(changed?.type === 'files_changed' && changed.files, [
        { path: 'src/app.js', change: 'modified' },
        { path: 'src/extra.js', change: 'created' },
      ]);
      const outcome = await session.revertTurn();
      assert.deepEqual(outcome, {
        status: 'reverted',
        restored: ['src/app.js'],
        deleted: ['src/extra.js'],
        failed: [],
      });
      assert.equal(fs.readFileSync(path.join(root, 'src', 'app.js'), 'utf8'), 'const answer = 41;\n');
      assert.equal(fs.existsSync(path.join(root, 'src', 'extra.js')), false);
      assert.ok(events.some((event) => event.type === 'turn_reverted' && event.turn === 1));
      assert.deepEqual(await session.revertTurn(), { status: 'nothing_to_revert' });
      await session.submit('what now?');
      await waitDone(2);
      const lastRequest = JSON.stringify(server.modelCalls.at(-1)?.body);
      assert.match(lastRequest, /The user reverted your file changes/);
      assert.match(lastRequest, /Deleted \(you had created them\): src\/extra.js/);
    } finally {
      await server.close();
    }
  });
});
