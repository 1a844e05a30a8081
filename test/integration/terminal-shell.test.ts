import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { TERMINAL_NAME, TerminalShell } from '../../src/host/terminal/terminal-shell';
import { ChildProcessShell } from '../../src/node/child-process-shell';
import { PATIENCE_MS } from '../harness/patience';

describe('terminal shell', () => {
  let shell: TerminalShell;
  before(() => {
    shell = new TerminalShell(new ChildProcessShell(), () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath);
  });
  after(() => shell.dispose());

  it('runs a command in the "OpenAgent" terminal through shell integration and captures its output', async () => {
    const result = await shell.run('echo probe-$((6*7))', { timeoutMs: PATIENCE_MS, maxOutputChars: 10_000 });
    assert.equal(result.via, 'shell-integration');
    assert.match(result.output, /probe-42/);
    assert.ok(!result.output.includes('\u001b'), 'escape sequences are stripped');
    assert.equal(result.exitCode, 0);
    assert.ok(vscode.window.terminals.some((terminal) => terminal.name === TERMINAL_NAME));
  });

  it('reports a failing command’s exit code', async () => {
    const result = await shell.run('ls /definitely/not/here', { timeoutMs: PATIENCE_MS, maxOutputChars: 10_000 });
    assert.notEqual(result.exitCode, 0);
    assert.match(result.output, /No such file or directory/);
  });

  it('runs in the workspace folder', async () => {
    const result = await shell.run('pwd', { timeoutMs: PATIENCE_MS, maxOutputChars: 10_000 });
    assert.match(
      result.output,
      new RegExp(vscode.workspace.workspaceFolders![0]!.uri.fsPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
    );
  });
});
