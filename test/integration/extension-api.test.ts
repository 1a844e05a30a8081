/**
 * The extension API (SPEC 2.11) used by another extension: test/fixtures/extensions/api-client,
 * loaded beside OpenAgent in the same editor. Its tool (with its own zod schema) is offered to
 * the model and runs; its hooks rewrite and block prompts and block a tool call; the
 * conversation it starts shows in the chat and reports its events back to it.
 */
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { z } from 'zod';
import type { OpenAgentApi } from '../../src/extension';
import type { RecordedRequest } from '../fixtures/fake-model-server/server';
import { activateOpenAgent, answerQuickInput, FakeModelControl, waitFor } from './helpers';

interface ApiClient {
  seen: {
    lookups: Array<{ id: string; conversationId: string; agentId: string }>;
    prompts: string[];
    toolUses: string[];
    results: Array<{ toolName: string; output: string; isError: boolean }>;
  };
  start(): void;
  stop(): void;
  run(prompt: string): Promise<{ id: string; last: string; lastMessage?: string; types: string[]; live: string[] }>;
  registerBadTool(definition: unknown): string;
}

interface AnthropicRequest {
  tools?: Array<{ name: string; input_schema: unknown }>;
  messages: Array<{ role: string; content: string | Array<Record<string, unknown>> }>;
}

describe('extension API, used by another extension', function () {
  const model = FakeModelControl.fromEnv('OPENAGENT_TEST_MODEL');
  let api: OpenAgentApi;
  let client: ApiClient;

  const modelCalls = async () =>
    (await model.requests()).filter((request: RecordedRequest) => request.protocol === 'anthropic');

  before(async () => {
    api = await activateOpenAgent();
    const extension = vscode.extensions.getExtension<ApiClient>('openagent-tests.api-client');
    assert.ok(extension, 'the api-client test extension is loaded beside OpenAgent');
    client = await extension.activate();
    client.start();
    // A key for the suite's fake Anthropic endpoint (this file may run first).
    const done = vscode.commands.executeCommand('openagent.setApiKey');
    await answerQuickInput('API key', 'sk-ant-api03-Qv7Lx2Tz9WkR4mYp');
    await done;
    await vscode.commands.executeCommand('openagent.focusChat');
    await waitFor(() => api.isChatViewReady, 'the chat webview');
  });
  after(() => client?.stop());
  beforeEach(() => model.clearRequests());

  it('offers its tool to the model, runs it, applies its hooks, and reports the conversation’s events', async () => {
    await model.setScenario({
      name: 'api client',
      turns: [
        {
          toolCalls: [
            { id: 'lookup', name: 'ticket_lookup', arguments: { id: 'OPS-42' } },
            { id: 'shell', name: 'bash', arguments: { command: 'npm test' } },
          ],
        },
        { text: 'OPS-42: the build fails on Node 22.' },
      ],
      whenExhausted: 'echo',
    });
    const result = await client.run('What is wrong with OPS-42?');
    assert.equal(result.last, 'done', result.lastMessage);
    assert.equal(result.id, api.conversationId, 'the chat shows the conversation the extension started');
    assert.deepEqual([result.types[0], result.types.at(-1)], ['user_message', 'done']);
    assert.ok(result.live.includes('tool_result') && result.live.at(-1) === 'done', result.live.join(', '));

    const [first, second] = await modelCalls();
    const offered = (first!.body as AnthropicRequest).tools ?? [];
    const tool = offered.find((candidate) => candidate.name === 'ticket_lookup');
    assert.ok(tool, offered.map((candidate) => candidate.name).join(', '));
    // Its own zod schema, as JSON Schema; its pattern is said in words (engines compile patterns
    // into grammars), while the call is still validated against it.
    assert.deepEqual((tool.input_schema as { required?: string[] }).required, ['id']);
    assert.match(JSON.stringify(tool.input_schema), /pattern \^\[A-Z\]\+-\\\\d\+\$/);
    assert.doesNotMatch(JSON.stringify(tool.input_schema), /"pattern":/);
    // UserPromptSubmit rewrote the prompt.
    assert.match(JSON.stringify((first!.body as AnthropicRequest).messages), /Team rule: cite ticket ids/);
    assert.deepEqual(client.seen.lookups, [{ id: 'OPS-42', conversationId: result.id, agentId: 'lead' }]);
    // The tool's answer and PreToolUse's block both reached the model.
    const results = (second!.body as AnthropicRequest).messages
      .flatMap((message) => (Array.isArray(message.content) ? message.content : []))
      .filter((block) => block.type === 'tool_result');
    assert.match(JSON.stringify(results), /Ticket OPS-42: the build fails on Node 22/);
    assert.match(JSON.stringify(results), /Blocked by a hook: The api-client extension allows no shell commands/);
    assert.ok(client.seen.toolUses.includes('bash'));
    assert.ok(client.seen.results.some((entry) => entry.toolName === 'ticket_lookup' && !entry.isError));
  });

  it('a UserPromptSubmit hook that blocks ends the run with its reason, and nothing reaches the model', async () => {
    await model.setScenario({ name: 'never', turns: [], whenExhausted: 'echo' });
    const result = await client.run('[confidential] the merger plans');
    assert.equal(result.last, 'error');
    assert.match(result.lastMessage ?? '', /blocked by a hook: Confidential prompts stay out of the agent/);
    assert.equal((await modelCalls()).length, 0);
  });

  it('refuses a bad tool definition with a clear message', () => {
    const schema = { safeParse: () => ({ success: true }) };
    assert.match(
      client.registerBadTool({ name: 'no spaces', description: 'x', inputSchema: schema, handler: () => '' }),
      /Invalid tool name "no spaces"/,
    );
    assert.match(
      client.registerBadTool({ name: 'mcp__x__y', description: 'x', inputSchema: schema, handler: () => '' }),
      /mcp__/,
    );
    assert.match(
      client.registerBadTool({
        name: 'ticket_lookup',
        description: 'again',
        inputSchema: z.object({}),
        handler: () => '',
      }),
      /already registered a tool named "ticket_lookup"/,
    );
    assert.match(
      client.registerBadTool({ name: 'no_schema', description: 'x', handler: () => '' }),
      /needs a zod schema/,
    );
  });
});
