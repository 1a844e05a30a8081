import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { createFileTools } from '../../src/core/tools/builtin/file-tools';
import type { AnyTool } from '../../src/core/tools/tool';
import { VscodeWorkspace } from '../../src/host/workspace/vscode-workspace';

async function run(tool: AnyTool | undefined, input: unknown): Promise<string> {
  const result = await tool!.execute(tool!.inputSchema.parse(input), {
    conversationId: 'c',
    agentId: 'lead',
    toolCallId: 't',
    signal: new AbortController().signal,
  });
  return typeof result === 'string' ? result : result.output;
}

describe('file tools through VS Code', () => {
  const root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const [readFile, listFiles, writeFile, editFile] = createFileTools(new VscodeWorkspace(root));

  it('creates a file with a WorkspaceEdit and reads it back with line numbers', async () => {
    await run(writeFile, { path: 'notes/created.md', content: '# Created\nby the agent\n' });
    assert.equal(fs.readFileSync(path.join(root, 'notes', 'created.md'), 'utf8'), '# Created\nby the agent\n');
    assert.equal(
      await run(readFile, { path: 'notes/created.md', limit: 2 }),
      '1\t# Created\n2\tby the agent\n[1 more lines: read on with offset 3]',
    );
    assert.match(await run(listFiles, { path: 'notes' }), /notes\/created\.md/);
    const glob = createFileTools(new VscodeWorkspace(root)).find((tool) => tool.name === 'glob');
    assert.equal(await run(glob, { pattern: '**/*.ts', path: 'ts' }), 'ts/broken.ts\nts/main.ts\nts/shapes.ts');
  });

  it('edits a file on disk in a way the user can undo', async () => {
    const file = path.join(root, 'src', 'greet.js');
    const before = fs.readFileSync(file, 'utf8');
    await run(editFile, { path: 'src/greet.js', edits: [{ oldText: 'Hello, ${name}!', newText: 'Hi, ${name}!' }] });
    assert.match(fs.readFileSync(file, 'utf8'), /Hi, \$\{name\}!/);
    const document = await vscode.workspace.openTextDocument(file);
    await vscode.window.showTextDocument(document);
    await vscode.commands.executeCommand('undo');
    assert.equal(document.getText(), before);
    await document.save();
  });

  it('keeps an open document with unsaved changes consistent, and does not save it for the user', async () => {
    const file = path.join(root, 'src', 'dirty.js');
    fs.writeFileSync(file, 'const a = 1;\nconst b = 2;\n');
    const document = await vscode.workspace.openTextDocument(file);
    await vscode.window.showTextDocument(document);
    const typing = new vscode.WorkspaceEdit();
    typing.insert(document.uri, new vscode.Position(0, 0), '// typed by the user\n');
    await vscode.workspace.applyEdit(typing);
    assert.equal(document.isDirty, true);
    await run(editFile, { path: 'src/dirty.js', edits: [{ oldText: 'const b = 2;', newText: 'const b = 3;' }] });
    assert.equal(document.getText(), '// typed by the user\nconst a = 1;\nconst b = 3;\n');
    assert.equal(document.isDirty, true, "the user's unsaved work stays theirs to save");
    assert.equal(fs.readFileSync(file, 'utf8'), 'const a = 1;\nconst b = 2;\n');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });
});
