/**
 * MCP servers from VS Code's `.vscode/mcp.json` in the real editor (issue 35, item 3): a server
 * the workspace defines starts only after the user allowed that exact definition, its
 * `${input:…}` is asked once (kept in SecretStorage, never shown to the model), and a changed
 * definition asks again — refused, its tools are gone.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { OpenAgentApi } from '../../src/extension';
import type { RecordedRequest } from '../fixtures/fake-model-server/server';
import {
  activateOpenAgent,
  answerQuickInput,
  clickNotification,
  FakeModelControl,
  sendChatPrompt,
  toolResults,
  waitFor,
} from './helpers';

/** The key the first suite sets with "Set API Key"; set again so this file also runs alone (OPENAGENT_TEST_GREP). */
const KEY = 'sk-ant-typed-into-set-api-key';
const TOKEN = 'mcp-input-Zq8Rw3Tn5Lk2Vb7Yx4';
const SECOND = 'mcp-second-Hp6Jd9Qs2Wm5Ct8';

const offeredTools = (request: RecordedRequest) =>
  ((request.body as { tools?: Array<{ name: string }> }).tools ?? []).map((tool) => tool.name);

describe('MCP servers from .vscode/mcp.json', function () {
  const root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const file = path.join(root, '.vscode', 'mcp.json');
  const model = FakeModelControl.fromEnv('OPENAGENT_TEST_MODEL');
  const everything = path.resolve(
    __dirname,
    '../../..',
    'node_modules/@modelcontextprotocol/server-everything/dist/index.js',
  );
  let api: OpenAgentApi;

  /** Writes the file as a user would, JSONC with a comment and trailing commas. */
  function writeMcpJson(env: Record<string, string>, inputs: Array<{ id: string; description: string }>): void {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const inputLines = inputs.map(
      (input) =>
        `    { "type": "promptString", "id": "${input.id}", "description": "${input.description}", "password": true },`,
    );
    fs.writeFileSync(
      file,
      [
        '{',
        '  // The everything server of the MCP project, with a token it must be given.',
        '  "inputs": [',
        ...inputLines,
        '  ],',
        '  "servers": {',
        '    "everything": {',
        '      "type": "stdio",',
        `      "command": ${JSON.stringify(process.execPath)},`,
        `      "args": [${JSON.stringify(everything)}, "stdio"],`,
        `      "env": ${JSON.stringify(env)},`,
        '    },',
        '  },',
        '}',
      ].join('\n'),
    );
  }

  /** A new conversation; returns the requests the model got (its first one lists the tools offered). */
  async function conversation(probe: string): Promise<RecordedRequest[]> {
    await model.clearRequests();
    await model.setScenario({ name: probe, turns: [{ text: 'Done.' }], whenExhausted: 'echo' });
    await vscode.commands.executeCommand('openagent.newChat');
    await sendChatPrompt(probe);
    return model.callsWhenIdle(api, 1);
  }

  before(async () => {
    api = await activateOpenAgent();
    const setKey = vscode.commands.executeCommand('openagent.setApiKey');
    await answerQuickInput('API key', KEY);
    await setKey;
    await vscode.commands.executeCommand('openagent.focusChat');
    await waitFor(() => api.isChatViewReady, 'the chat webview to say it is ready');
  });

  after(() => {
    fs.rmSync(file, { force: true });
  });

  it("the user's own mcp.json starts without asking, and wins a name the workspace also defines (reported)", async () => {
    // code-server's user data folder is beside the workspace copy; VS Code keeps mcp.json in its User folder.
    const userFile = path.join(path.dirname(root), 'user-data', 'User', 'mcp.json');
    const marker = path.join(root, 'workspace-shared-ran.txt');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(
      file,
      JSON.stringify({
        servers: {
          shared: {
            command: process.execPath,
            args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, '')`],
          },
        },
      }),
    );
    fs.writeFileSync(
      userFile,
      JSON.stringify({ servers: { shared: { command: process.execPath, args: [everything, 'stdio'] } } }),
    );
    try {
      await vscode.commands.executeCommand('openagent.restartMcpServers');
      await clickNotification(
        'MCP server "shared" in .vscode/mcp.json: also defined in user mcp.json, which wins',
        'Open mcp.json',
      );
      const [first] = await conversation('user mcp.json probe');
      assert.ok(offeredTools(first!).includes('mcp__shared__echo'), offeredTools(first!).join(', '));
      assert.equal(fs.existsSync(marker), false, "the workspace's losing definition ran");
    } finally {
      fs.rmSync(userFile, { force: true });
      fs.rmSync(file, { force: true });
    }
  });

  it('asks to start the server, then for its input; its tools reach the model, the input value never does', async () => {
    writeMcpJson({ EVERYTHING_TOKEN: '${input:everything-token}' }, [
      { id: 'everything-token', description: 'Token for the everything server' },
    ]);
    const restarted = vscode.commands.executeCommand('openagent.restartMcpServers');
    await clickNotification('Start MCP server "everything" from .vscode/mcp.json? ', 'Allow');
    await restarted;
    // "Allow" restarts the servers; this one asks its input as it starts.
    await answerQuickInput('Token for the everything server', TOKEN);

    await model.clearRequests();
    await model.setScenario({
      name: 'mcp.json get-env',
      turns: [
        { toolCalls: [{ id: 'call_get_env', name: 'mcp__everything__get-env', arguments: {} }] },
        { text: 'The server has its token.' },
      ],
      whenExhausted: 'echo',
    });
    await vscode.commands.executeCommand('openagent.newChat');
    await sendChatPrompt('mcp.json probe');
    await clickNotification('OpenAgent wants to use get-env from the MCP server "everything"', 'Approve');
    const calls = await model.callsWhenIdle(api, 2);
    assert.ok(offeredTools(calls[0]!).includes('mcp__everything__echo'), offeredTools(calls[0]!).join(', '));
    const result = toolResults(calls[1]!).get('call_get_env');
    assert.ok(result && !result.isError, JSON.stringify(result));
    // The server got the variable (its value is redacted: an input is a held secret).
    assert.match(result.text, /EVERYTHING_TOKEN/);
    assert.ok(!JSON.stringify(calls).includes(TOKEN), 'the input value reached the model');
  });

  it('a changed definition asks again (the kept input is not asked again); refused, its tools are gone', async () => {
    // A new variable: asked about again; its new input is asked, the first one is not (it would block here).
    writeMcpJson({ EVERYTHING_TOKEN: '${input:everything-token}', EVERYTHING_SECOND: '${input:second}' }, [
      { id: 'everything-token', description: 'Token for the everything server' },
      { id: 'second', description: 'Second value for the everything server' },
    ]);
    await clickNotification('env: EVERYTHING_TOKEN, EVERYTHING_SECOND', 'Allow');
    await answerQuickInput('Second value for the everything server', SECOND);
    const allowed = await conversation('after the change');
    assert.ok(offeredTools(allowed[0]!).includes('mcp__everything__get-env'), offeredTools(allowed[0]!).join(', '));

    writeMcpJson({ EVERYTHING_TOKEN: '${input:everything-token}', EVERYTHING_THIRD: 'x' }, [
      { id: 'everything-token', description: 'Token for the everything server' },
    ]);
    await clickNotification('env: EVERYTHING_TOKEN, EVERYTHING_THIRD', "Don't Allow");
    const refused = await conversation('after refusing');
    const offered = offeredTools(refused[0]!);
    assert.ok(offered.includes('read_file'), offered.join(', '));
    assert.ok(!offered.some((name) => name.startsWith('mcp__everything__')), offered.join(', '));
  });
});
