import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateOpenAgent, EXTENSION_ID } from './helpers';

describe('activation', () => {
  it('activates in the real extension host and returns its API', async () => {
    const api = await activateOpenAgent();
    const extension = vscode.extensions.getExtension(EXTENSION_ID)!;
    assert.equal(extension.isActive, true);
    assert.equal(api.version, extension.packageJSON.version);
  });

  it('registers its commands', async () => {
    await activateOpenAgent();
    const commands = await vscode.commands.getCommands(true);
    // Every command the manifest contributes is registered by activation.
    const extension = vscode.extensions.getExtension(EXTENSION_ID)!;
    const manifest = (extension.packageJSON as { contributes: { commands: Array<{ command: string }> } }).contributes;
    for (const command of manifest.commands.map((entry) => entry.command)) {
      assert.ok(commands.includes(command), `${command} is not registered`);
    }
  });

  it('declares limited support for untrusted workspaces and no eager activation', () => {
    const manifest = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON;
    assert.equal(manifest.capabilities.untrustedWorkspaces.supported, 'limited');
    assert.ok(!manifest.activationEvents.includes('*'));
  });
});
