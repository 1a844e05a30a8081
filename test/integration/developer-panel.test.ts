import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateOpenAgent, closeAllEditors, waitFor } from './helpers';

function developerPanelTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all
    .flatMap((group) => group.tabs)
    .filter(
      (tab) => tab.input instanceof vscode.TabInputWebview && tab.input.viewType.endsWith('openagent.developerPanel'),
    );
}

describe('developer panel', () => {
  it('opens from "OpenAgent: Open Developer Panel", completes the handshake, and opens only once', async () => {
    const api = await activateOpenAgent();
    assert.ok((await vscode.commands.getCommands(true)).includes('openagent.openDeveloperPanel'));
    await vscode.commands.executeCommand('openagent.openDeveloperPanel');
    await waitFor(() => api.isDeveloperPanelReady, 'the developer panel webview to say it is ready');
    const [tab] = developerPanelTabs();
    assert.equal(tab?.label, 'OpenAgent Developer Panel');

    // Running the command again brings the same panel forward.
    await vscode.commands.executeCommand('workbench.action.files.newUntitledFile');
    await waitFor(() => developerPanelTabs()[0]?.isActive === false, 'another editor to cover the panel');
    await vscode.commands.executeCommand('openagent.openDeveloperPanel');
    await waitFor(() => developerPanelTabs()[0]?.isActive === true, 'the panel to be revealed');
    assert.equal(developerPanelTabs().length, 1);
    await waitFor(() => api.isDeveloperPanelReady, 'the revealed panel to say it is ready again');

    await vscode.window.tabGroups.close(developerPanelTabs());
    await waitFor(() => !api.isDeveloperPanelReady, 'the closed panel to be gone');
    await closeAllEditors();
  });
});
