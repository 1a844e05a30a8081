import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateOpenAgent, waitFor } from './helpers';

describe('chat view', () => {
  it('resolves in the sidebar and its webview completes the handshake', async () => {
    const api = await activateOpenAgent();
    const ready = new Promise<void>((resolve) => api.onDidChatViewBecomeReady(() => resolve()));
    await vscode.commands.executeCommand('openagent.focusChat');
    await Promise.race([ready, waitFor(() => api.isChatViewReady, 'the chat webview to say it is ready')]);
    assert.equal(api.isChatViewReady, true);
  });
});
