/**
 * In Restricted Mode no MCP server the folder defines starts — not from .vscode/mcp.json, nor
 * .mcp.json, nor .openagent/mcp.json — and nothing asks to start one: the folder's files are
 * not even read. Each server would write a marker file if it ever ran.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateOpenAgent, FakeModelControl, sendChatPrompt, waitFor } from '../integration/helpers';

describe('MCP servers an untrusted folder defines', () => {
  const root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const userModel = FakeModelControl.fromEnv('OPENAGENT_TEST_USER_MODEL');
  const marker = (name: string) => path.join(root, `mcp-server-ran-${name}.txt`);
  const server = (name: string) => ({
    command: process.execPath,
    args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker(name))}, 'ran')`],
  });

  it('start nothing: no tool of theirs is offered and no server process ran', async () => {
    const files: Record<string, object> = {
      '.vscode/mcp.json': { servers: { 'vscode-file': { type: 'stdio', ...server('vscode') } } },
      '.mcp.json': { mcpServers: { 'portable-file': server('portable') } },
      '.openagent/mcp.json': { mcpServers: { 'own-file': server('own') } },
    };
    for (const [relative, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
      fs.writeFileSync(path.join(root, relative), JSON.stringify(content));
    }
    try {
      const api = await activateOpenAgent();
      await vscode.commands.executeCommand('openagent.restartMcpServers');
      await userModel.setScenario({
        name: 'untrusted mcp',
        turns: [{ text: 'Nothing to add.' }],
        whenExhausted: 'echo',
      });
      await vscode.commands.executeCommand('openagent.focusChat');
      await waitFor(() => api.isChatViewReady, 'the chat webview to say it is ready');
      await userModel.clearRequests();
      await sendChatPrompt('untrusted-mcp-probe');
      const [request] = await userModel.callsWhenIdle(api, 1);
      const offered = ((request!.body as { tools?: Array<{ name: string }> }).tools ?? []).map((tool) => tool.name);
      assert.ok(offered.includes('read_file'), offered.join(', '));
      assert.deepEqual(
        offered.filter((name) => name.startsWith('mcp__')),
        [],
      );
      // Nothing asked to start them either (were the files read, each would be waiting for "Allow").
      const screen = await (await fetch(`${process.env.OPENAGENT_TEST_DRIVER}/screen`, { method: 'POST' })).text();
      assert.ok(screen.includes('toasts'), screen);
      assert.doesNotMatch(screen, /Start MCP server/);
      for (const name of ['vscode', 'portable', 'own'])
        assert.equal(fs.existsSync(marker(name)), false, `the ${name} server ran`);
    } finally {
      // The suite's next file reads the first request the model gets: leave it a clean slate.
      await vscode.commands.executeCommand('openagent.newChat');
      await userModel.clearRequests();
      for (const relative of ['.vscode/mcp.json', '.mcp.json', '.openagent/mcp.json'])
        fs.rmSync(path.join(root, relative), { force: true });
    }
  });
});
