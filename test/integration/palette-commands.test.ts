/**
 * Palette commands doing what their names say, in the real editor: those that end in a visible
 * effect without a dialog (files written, documents opened, settings or state changed).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { waitUntil } from '../harness/patience';
import { activateOpenAgent, closeAllEditors, waitFor } from './helpers';

describe('palette commands', () => {
  const root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  before(() => activateOpenAgent());
  afterEach(() => closeAllEditors());

  it('Open Agent Policy creates a commented starter .openagent/agent.yaml and opens it, keeping an existing one', async () => {
    const file = path.join(root, '.openagent', 'agent.yaml');
    await vscode.commands.executeCommand('openagent.openPolicy');
    await waitFor(() => vscode.window.activeTextEditor?.document.uri.fsPath === file, 'agent.yaml in the editor');
    assert.match(fs.readFileSync(file, 'utf8'), /^# OpenAgent policy for this workspace/);
    fs.writeFileSync(file, 'tools:\n  deny: [bash]\n');
    await vscode.commands.executeCommand('openagent.openPolicy');
    assert.equal(fs.readFileSync(file, 'utf8'), 'tools:\n  deny: [bash]\n', 'an existing policy is never overwritten');
    fs.rmSync(path.join(root, '.openagent'), { recursive: true });
  });

  it('shows the mistakes of .openagent/agent.yaml as problems at their lines, as it is edited', async () => {
    const file = path.join(root, '.openagent', 'agent.yaml');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'tools:\n  deny: [bash]\nbudget:\n  daily_usd: -5\n  on_exceeded: explode\n');
    const document = await vscode.workspace.openTextDocument(file);
    const editor = await vscode.window.showTextDocument(document);
    const problems = () => vscode.languages.getDiagnostics(document.uri).filter((d) => d.source === 'OpenAgent policy');
    await waitFor(() => problems().length === 2, 'two policy problems');
    assert.deepEqual(
      problems().map((problem) => [problem.range.start.line, problem.message.split(':')[0]]),
      [
        [3, 'budget.daily_usd'],
        [4, 'budget.on_exceeded'],
      ],
    );
    // Fixed in the editor, unsaved: the problems go.
    await editor.edit((edit) => edit.replace(new vscode.Range(3, 0, 5, 0), '  daily_usd: 5\n  on_exceeded: warn\n'));
    await waitFor(() => problems().length === 0, 'the problems to clear');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    fs.rmSync(path.join(root, '.openagent'), { recursive: true });
  });

  it('Toggle Plan Mode switches plan mode for the next conversation and back', async () => {
    const api = await activateOpenAgent();
    const before = api.planModeActive;
    await vscode.commands.executeCommand('openagent.togglePlanMode');
    assert.equal(api.planModeActive, !before);
    await vscode.commands.executeCommand('openagent.togglePlanMode');
    assert.equal(api.planModeActive, before);
  });

  it('selection commands ask for a selection instead of sending an empty prompt', async () => {
    await vscode.commands.executeCommand('openagent.newChat');
    const document = await vscode.workspace.openTextDocument({ content: 'const a = 1;\n', language: 'javascript' });
    await vscode.window.showTextDocument(document);
    for (const command of ['explainSelection', 'fixSelection', 'refactorSelection', 'writeTestsForSelection'])
      await vscode.commands.executeCommand(`openagent.${command}`);
    const api = await activateOpenAgent();
    assert.equal(api.conversationId, undefined, 'no conversation was started');
  });

  it('Show Usage and Budget opens a usage table; Restart MCP Servers answers', async () => {
    await vscode.commands.executeCommand('openagent.showUsage');
    await waitUntil(
      () => vscode.workspace.textDocuments.some((document) => document.getText().startsWith('# OpenAgent usage')),
      () =>
        `the usage document; open: ${vscode.workspace.textDocuments
          .map((document) => `${document.uri.toString()} ${JSON.stringify(document.getText().slice(0, 30))}`)
          .join(', ')}; tabs: ${vscode.window.tabGroups.all
          .flatMap((group) => group.tabs.map((tab) => tab.label))
          .join(', ')}`,
    );
    await vscode.commands.executeCommand('openagent.restartMcpServers');
  });
});
