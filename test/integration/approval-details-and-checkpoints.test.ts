/**
 * Show Details and checkpoints through VS Code: the diff an approval opens for an edit (the
 * file itself untouched), the full command for bash, and a turn reverted through WorkspaceEdit
 * (an edited file restored, a created one deleted).
 */
import { NO_RISK } from '../../src/core/policy/call-risk';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ApprovalRequest } from '../../src/core/policy/approval';
import { createFileTools } from '../../src/core/tools/builtin/file-tools';
import { Checkpoints } from '../../src/core/workspace/checkpoints';
import { ApprovalDetails } from '../../src/host/approvals/approval-details';
import { VscodeWorkspace } from '../../src/host/workspace/vscode-workspace';
import { runTool } from '../unit/core/tools/run-tool';
import { activateOpenAgent, closeAllEditors, waitFor } from './helpers';

function request(toolName: string, input: unknown): ApprovalRequest {
  return {
    conversationId: 'c',
    toolCallId: `call-${Math.random()}`,
    toolName,
    input,
    summary: toolName,
    argumentsHash: 'h',
    risk: NO_RISK,
    signal: new AbortController().signal,
  };
}

describe('approval details and checkpoints through VS Code', () => {
  const root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const workspace = new VscodeWorkspace(root);
  let provider: ApprovalDetails;
  let details: { show: (request: ApprovalRequest) => Promise<void> };
  before(async () => {
    // After OpenAgent's own (it registers the same scheme): the latest registration answers, so
    // the test's details must come last, whichever test file ran first.
    await activateOpenAgent();
    provider = new ApprovalDetails();
    details = { show: provider.showIn(() => workspace) };
  });
  after(() => provider.dispose());
  afterEach(() => closeAllEditors());

  it('shows an edit as a diff of current and proposed text, changing nothing', async () => {
    const file = path.join(root, 'src', 'greet.js');
    const before = fs.readFileSync(file, 'utf8');
    await details.show(
      request('edit_file', {
        path: 'src/greet.js',
        edits: [{ oldText: 'Hello, ${name}!', newText: 'Hi there, ${name}!' }],
      }),
    );
    let tab: vscode.Tab | undefined;
    await waitFor(
      () => (tab = vscode.window.tabGroups.activeTabGroup.activeTab)?.input instanceof vscode.TabInputTextDiff,
      'a diff tab',
    );
    const input = tab!.input as vscode.TabInputTextDiff;
    assert.match(tab!.label, /src\/greet.js: current ↔ proposed/);
    const original = await vscode.workspace.openTextDocument(input.original);
    const modified = await vscode.workspace.openTextDocument(input.modified);
    assert.equal(original.getText(), before);
    assert.equal(modified.getText(), before.replace('Hello, ${name}!', 'Hi there, ${name}!'));
    assert.equal(fs.readFileSync(file, 'utf8'), before, 'showing details does not write');
  });

  it('shows the full command of a bash call', async () => {
    const command = 'npm test -- --grep "long name" && echo done';
    await details.show(request('bash', { command }));
    await waitFor(() => vscode.window.activeTextEditor?.document.getText() === command, 'the command in an editor');
    assert.equal(vscode.window.activeTextEditor!.document.languageId, 'shellscript');
  });

  it('reverts a turn: the edited file restored, the created file deleted', async () => {
    const checkpoints = new Checkpoints(workspace);
    const [, , writeFile, editFile] = createFileTools(checkpoints.tracked());
    const file = path.join(root, 'src', 'greet.js');
    const before = fs.readFileSync(file, 'utf8');
    const turn = checkpoints.beginTurn();
    assert.equal(
      (await runTool(editFile, { path: 'src/greet.js', edits: [{ oldText: 'Hello', newText: 'Howdy' }] })).isError,
      false,
    );
    assert.equal(
      (await runTool(writeFile, { path: 'src/created-by-turn.js', content: 'module.exports = 1;\n' })).isError,
      false,
    );
    assert.match(fs.readFileSync(file, 'utf8'), /Howdy/);
    const result = await checkpoints.revert(turn);
    assert.deepEqual(result.failed, []);
    assert.equal(fs.readFileSync(file, 'utf8'), before);
    assert.equal(fs.existsSync(path.join(root, 'src', 'created-by-turn.js')), false);
  });
});
