import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createFileTools } from '../../../../src/core/tools/builtin/file-tools';
import { applyEdits } from '../../../../src/core/workspace/apply-edits';
import { decodeText, encodeText, BinaryFileError } from '../../../../src/core/workspace/text-file';
import { PathError, resolveWorkspacePath } from '../../../../src/core/workspace/workspace-path';
import { NodeWorkspace } from '../../../../src/node/node-workspace';
import { runTool } from '../tools/run-tool';

function sandbox(): { root: string; outside: string; workspace: NodeWorkspace } {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-ws-'));
  const root = path.join(base, 'workspace');
  const outside = path.join(base, 'outside');
  fs.mkdirSync(path.join(root, 'src'), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'top secret');
  fs.writeFileSync(path.join(root, 'src', 'app.ts'), 'export const answer = 41;\n');
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link-to-secret'));
  fs.symlinkSync(outside, path.join(root, 'linked-folder'));
  return { root, outside, workspace: new NodeWorkspace(root) };
}

const run = runTool;

describe('workspace paths', () => {
  it('refuses every escape TESTING.md lists, with a reason', async () => {
    const { root, outside, workspace } = sandbox();
    for (const input of [
      '../../x',
      '../outside/secret.txt',
      path.join(outside, 'secret.txt'),
      '/etc/passwd',
      '~',
      '~/.bashrc',
      'file:///etc/passwd',
      '%2e%2e%2fsecret.txt',
      'src/\0app.ts',
      'src\\..\\..\\outside',
      'link-to-secret',
      'linked-folder/secret.txt',
      'linked-folder/new-file.txt',
    ]) {
      await assert.rejects(resolveWorkspacePath(root, input, workspace), PathError, input);
    }
  });

  it('accepts paths inside, relative or absolute, existing or new', async () => {
    const { root, workspace } = sandbox();
    const real = fs.realpathSync(root);
    assert.equal(await resolveWorkspacePath(root, 'src/app.ts', workspace), path.join(real, 'src', 'app.ts'));
    assert.equal(
      await resolveWorkspacePath(root, path.join(root, 'src', 'new', 'deep.ts'), workspace),
      path.join(real, 'src', 'new', 'deep.ts'),
    );
    assert.equal(await resolveWorkspacePath(root, './src/../README.md', workspace), path.join(real, 'README.md'));
  });
});

describe('text files', () => {
  it('round-trips UTF-8 with BOM, UTF-16 LE/BE and CRLF byte for byte', () => {
    const samples = [
      Buffer.from('\ufeffhé\r\nlo\r\n', 'utf8'),
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hé\nlo', 'utf16le')]),
      Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('hé\nlo', 'utf16le').swap16()]),
    ];
    for (const bytes of samples) {
      const { text, ...format } = decodeText(bytes);
      assert.deepEqual(Buffer.from(encodeText(text, format)), bytes);
    }
    assert.equal(decodeText(samples[0]!).lineEnding, '\r\n');
  });

  it('says a binary file is binary', () => {
    assert.throws(() => decodeText(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2])), BinaryFileError);
  });
});

describe('applyEdits', () => {
  it('applies several edits in order and keeps CRLF', () => {
    const outcome = applyEdits('a = 1;\r\nb = 2;\r\n', '\r\n', [
      { oldText: 'a = 1;', newText: 'a = 10;' },
      { oldText: 'b = 2;\n', newText: 'b = 20;\nc = 30;\n' },
    ]);
    assert.ok(outcome.ok);
    assert.equal(outcome.pieces.join(''), 'a = 10;\r\nb = 20;\r\nc = 30;\r\n');
    assert.equal(outcome.replacements, 2);
  });

  it('changes nothing and says why when a match is missing or ambiguous', () => {
    assert.match(
      (applyEdits('x x', '\n', [{ oldText: 'x', newText: 'y' }]) as { reason: string }).reason,
      /occurs 2 times.*replaceAll/,
    );
    assert.match(
      (
        applyEdits('x', '\n', [
          { oldText: 'x', newText: 'y' },
          { oldText: 'zzz', newText: 'w' },
        ]) as { reason: string }
      ).reason,
      /Edit 2: oldText was not found/,
    );
    const all = applyEdits('x x', '\n', [{ oldText: 'x', newText: 'y', replaceAll: true }]);
    assert.ok(all.ok);
    assert.equal(all.pieces.join(''), 'y y');
    assert.equal(all.replacements, 2);
  });
});

describe('file tools on a real folder', () => {
  it('reads with line numbers, lists, writes, and edits — and refuses paths outside', async () => {
    const { root, workspace } = sandbox();
    const [readFile, listFiles, writeFile, editFile] = createFileTools(workspace);
    assert.equal((await run(readFile, { path: 'src/app.ts' })).output, '1\texport const answer = 41;\n2\t');
    assert.match((await run(listFiles, { path: '.', recursive: true })).output, /src\/\nsrc\/app.ts/);
    const edited = await run(editFile, { path: 'src/app.ts', edits: [{ oldText: '41', newText: '42' }] });
    assert.equal(edited.isError, false);
    assert.equal(fs.readFileSync(path.join(root, 'src', 'app.ts'), 'utf8'), 'export const answer = 42;\n');
    const failed = await run(editFile, { path: 'src/app.ts', edits: [{ oldText: 'nope', newText: 'x' }] });
    assert.match(failed.output, /was not changed.*not found/);
    await run(writeFile, { path: 'docs/new.md', content: '# New\n' });
    assert.equal(fs.readFileSync(path.join(root, 'docs', 'new.md'), 'utf8'), '# New\n');
    for (const outsidePath of ['../outside/secret.txt', 'link-to-secret']) {
      const result = await run(readFile, { path: outsidePath });
      assert.equal(result.isError, true);
      assert.match(result.output, /outside the workspace/);
    }
    const escape = await run(writeFile, { path: 'linked-folder/planted.txt', content: 'x' });
    assert.match(escape.output, /outside the workspace/);
    assert.equal(fs.existsSync(path.join(root, '..', 'outside', 'planted.txt')), false);
  });

  it('caps a 10 MB single-line file instead of flooding the context', async () => {
    const { root, workspace } = sandbox();
    fs.writeFileSync(path.join(root, 'bundle.min.js'), 'x'.repeat(10 * 1024 * 1024));
    const [readFile] = createFileTools(workspace);
    const result = await run(readFile, { path: 'bundle.min.js' });
    assert.ok(result.output.length < 3_000);
    assert.match(result.output, /line cut: 10485760 characters/);
  });
});
