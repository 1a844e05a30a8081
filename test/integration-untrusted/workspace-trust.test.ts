/**
 * SPEC 4.2 in the real editor: this suite runs with Workspace Trust on, in a folder nothing has
 * trusted. A conversation typed into the chat (against the fake model server the user settings
 * name) is offered read-only tools only, a writing call the model makes anyway is refused with
 * nothing written, and the folder's own model settings (.vscode/settings.json: provider, model,
 * base URL of a second fake server) are not honoured. There are no MCP servers, policy file or
 * auto-approval settings yet to check.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RecordedRequest } from '../fixtures/fake-model-server/server';
import { activateOpenAgent, toolResults, FakeModelControl, sendChatPrompt, waitFor } from '../integration/helpers';

/** Every tool that only reads; a tool offered in an untrusted folder must be one of them. */
const READ_ONLY_TOOLS = [
  'read_file',
  'list_files',
  'glob',
  'search_files',
  'get_diagnostics',
  'find_symbol',
  'find_references',
  'go_to_definition',
  'check_background',
  'think',
  'compact',
  // The agent's own state, never the workspace: the task board, bundled skills, global memory,
  // and sub-agents (which get only the tools offered here).
  'task',
  'task_create',
  'task_get',
  'task_update',
  'task_list',
  'memory_read',
  'list_skills',
  'read_skill',
];
const WRITING_TOOLS = ['write_file', 'edit_file', 'bash', 'background_run', 'memory_append'];
const WRITTEN_BY_WRITE_FILE = 'written-by-write-file.txt';
const WRITTEN_BY_BASH = 'written-by-bash.txt';

interface AnthropicRequestBody {
  model: string;
  tools?: Array<{ name?: string; function?: { name: string } }>;
  messages: Array<{
    role: string;
    content: string | Array<{ type: string; tool_use_id?: string; content?: unknown; is_error?: boolean }>;
  }>;
}

describe('an untrusted folder (Workspace Trust on, SPEC 4.2)', () => {
  const root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const userModel = FakeModelControl.fromEnv('OPENAGENT_TEST_USER_MODEL');
  const workspaceModel = FakeModelControl.fromEnv('OPENAGENT_TEST_WORKSPACE_MODEL');

  it('is untrusted in this editor', () => {
    assert.equal(vscode.workspace.isTrusted, false);
  });

  it("reads the folder's settings but not its model provider, model and base URL", () => {
    const folderSettings = JSON.parse(fs.readFileSync(path.join(root, '.vscode', 'settings.json'), 'utf8'));
    assert.deepEqual(
      {
        provider: folderSettings['openagent.provider'],
        model: folderSettings['openagent.model'],
        baseUrl: folderSettings['openagent.baseUrl'],
      },
      { provider: 'openai', model: 'workspace-model', baseUrl: `${workspaceModel.baseUrl}/v1` },
      'the fixture folder names its own model server',
    );
    const config = vscode.workspace.getConfiguration('openagent');
    assert.equal(config.get('maxTurns'), 7, 'an unrestricted folder setting applies: the folder settings are loaded');
    assert.deepEqual(
      { provider: config.get('provider'), model: config.get('model'), baseUrl: config.get('baseUrl') },
      { provider: 'anthropic', model: 'user-model', baseUrl: userModel.baseUrl },
      'the user-level values win over the folder ones',
    );
  });

  describe('a conversation in the chat', () => {
    let first: RecordedRequest;

    before(async () => {
      await userModel.setScenario({
        name: 'untrusted folder',
        turns: [
          {
            match: 'untrusted-probe',
            text: 'Reading the README, then changing things.',
            toolCalls: [
              { id: 'toolu_read', name: 'read_file', arguments: { path: 'README.md' } },
              { id: 'toolu_write', name: 'write_file', arguments: { path: WRITTEN_BY_WRITE_FILE, content: 'pwned' } },
              { id: 'toolu_bash', name: 'bash', arguments: { command: `echo pwned > ${WRITTEN_BY_BASH}` } },
            ],
          },
          { text: 'I could read, but not change anything here.' },
        ],
      });
      const api = await activateOpenAgent();
      await vscode.commands.executeCommand('openagent.focusChat');
      await waitFor(() => api.isChatViewReady, 'the chat webview to say it is ready');
      await sendChatPrompt('untrusted-probe: summarise the README, then record it in a file');
      let all: RecordedRequest[] = [];
      await waitFor(async () => {
        all = [...(await userModel.requests()), ...(await workspaceModel.requests())];
        return all.length > 0;
      }, 'a request at either fake model server');
      first = all[0]!;
    });

    it('goes to the model server, provider and model of the user settings, not the folder ones', async () => {
      assert.deepEqual(await workspaceModel.requests(), [], "the folder's model server heard nothing");
      const [request] = await userModel.requests();
      assert.ok(request, "the user's model server got the conversation");
      assert.equal(request.protocol, 'anthropic');
      assert.equal((request.body as AnthropicRequestBody).model, 'user-model');
      // The key from the environment (no key in secret storage): the SDK sends it as a bearer token.
      const key = String(request.headers['x-api-key'] ?? request.headers.authorization);
      assert.ok(key.endsWith(process.env.ANTHROPIC_API_KEY!), key);
    });

    it('offers read-only tools only', () => {
      // Anthropic tools carry their name; OpenAI ones (if the folder's provider won) under `function`.
      const offered = ((first.body as AnthropicRequestBody).tools ?? []).map(
        (tool) => tool.name ?? tool.function?.name ?? '(no name)',
      );
      for (const name of ['read_file', 'list_files', 'search_files']) {
        assert.ok(offered.includes(name), `${name} is not offered: ${offered}`);
      }
      for (const name of WRITING_TOOLS) assert.ok(!offered.includes(name), `${name} is offered: ${offered}`);
      const unknown = offered.filter((name) => !READ_ONLY_TOOLS.includes(name));
      assert.deepEqual(unknown, [], 'offered tools not known to only read (add a new reading tool to READ_ONLY_TOOLS)');
    });

    it('runs the read, refuses the write_file and bash calls the model makes anyway, and writes nothing', async () => {
      let second: RecordedRequest | undefined;
      await waitFor(
        async () => (second = (await userModel.requests())[1]) !== undefined,
        "the model's second request, with the tool results (a writing tool waiting for approval would hang here)",
      );
      const results = toolResults(second!);
      assert.equal(results.get('toolu_read')?.isError, false);
      assert.match(results.get('toolu_read')?.text ?? '', /Untrusted sample/);
      for (const [id, tool] of Object.entries({ toolu_write: 'write_file', toolu_bash: 'bash' })) {
        const result = results.get(id);
        assert.equal(result?.isError, true, `${tool} was not refused: ${result?.text}`);
        assert.ok(result.text.includes(`no tool named "${tool}" available now`), result.text);
      }
      // Whatever the run started has ended once the agent is idle: only then is "nothing written" true.
      const api = await activateOpenAgent();
      await waitFor(() => !api.isRunning, 'the conversation to end');
      for (const file of [WRITTEN_BY_WRITE_FILE, WRITTEN_BY_BASH]) {
        assert.equal(fs.existsSync(path.join(root, file)), false, `${file} was written`);
      }
    });
  });
});
