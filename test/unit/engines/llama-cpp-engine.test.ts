/**
 * What OpenAgent sends, accepted by llama.cpp's own server: every built-in tool's schema alone
 * and all together, and an MCP server's schema with limits that break llama.cpp's grammar
 * compiler; the window the server runs with; the server's own token count.
 */
import assert from 'node:assert/strict';
import { PlanMode } from '../../../src/core/agent/plan-mode';
import { createSubagentTool } from '../../../src/core/agent/subagents';
import { createMemoryTools } from '../../../src/core/knowledge/memory';
import { createSkillTools } from '../../../src/core/knowledge/skills';
import { createLlmClient } from '../../../src/core/llm/create-llm-client';
import type { LlmClient, LlmRequest, ToolDefinition } from '../../../src/core/llm/llm-client';
import { createMcpTool } from '../../../src/core/mcp/mcp-tool';
import { withRetry } from '../../../src/core/llm/retry';
import { createLeadTools, createMemberTools } from '../../../src/core/teams/team-tools';
import { createBackgroundTools } from '../../../src/core/tools/builtin/background';
import { createBashTool } from '../../../src/core/tools/builtin/bash';
import { createNavigationTools, createSearchTool } from '../../../src/core/tools/builtin/code-tools';
import { createCompactTool } from '../../../src/core/tools/builtin/compact';
import { createFileTools } from '../../../src/core/tools/builtin/file-tools';
import { createTaskTools } from '../../../src/core/tools/builtin/tasks';
import { thinkTool } from '../../../src/core/tools/builtin/think';
import { ToolRegistry } from '../../../src/core/tools/registry';
import type { AnyTool } from '../../../src/core/tools/tool';
import { LlamaServer } from '../../fixtures/llama-server/llama-server';
import { GREETING, TRIGGERS } from '../../fixtures/llama-server/scenes';
import { TEST_TIMEOUT_MS } from '../../harness/patience';

/** Only the definitions are used: the ports behind the tools are never called. */
const unused = {} as never;

/** Every tool OpenAgent itself offers a model, in the editor, the CLI, plan mode and teams. */
function builtinTools(): AnyTool[] {
  const tools: AnyTool[] = [
    ...createFileTools(unused),
    createSearchTool(unused, unused),
    ...createNavigationTools(unused, unused),
    createBashTool(unused, () => '/'),
    ...createBackgroundTools(unused, () => '/'),
    ...createTaskTools(() => unused),
    createCompactTool(() => {}),
    thinkTool,
    createSubagentTool(unused),
    ...createMemoryTools(unused),
    ...createSkillTools(unused),
    ...createLeadTools(unused),
    ...createMemberTools(unused, 'alice'),
    new PlanMode(true, () => {}).tool(),
  ];
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return [...byName.values()];
}

/** An MCP server's tool with limits llama.cpp's grammar compiler refuses ("failed to parse grammar"). */
function hostileMcpTool(): AnyTool {
  return createMcpTool(
    'docs',
    {
      name: 'lookup',
      description: 'Look a term up.',
      inputSchema: {
        type: 'object',
        properties: {
          term: { type: 'string', minLength: 2_001, maxLength: 100_000, pattern: '^[a-z]+$' },
          tags: { type: 'array', items: { type: 'string', maxLength: 5_000 }, minItems: 3_000 },
        },
        required: ['term'],
      },
    },
    unused,
  );
}

async function answer(client: LlmClient, tools: ToolDefinition[], prompt: string): Promise<string> {
  let text = '';
  for await (const part of client.stream({
    model: 'default',
    system: 'You are a test.',
    messages: [{ role: 'user', content: [{ type: 'text', text: prompt }] }],
    tools,
    maxOutputTokens: 64,
  })) {
    if (part.type === 'text_delta') text += part.text;
  }
  return text;
}

describe('a real llama.cpp server accepts what OpenAgent sends', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let server: LlamaServer;
  let client: LlmClient;

  before(async () => {
    server = await LlamaServer.start({ contextSize: 8192 });
    const setup = createLlmClient({ provider: 'llamacpp', model: '', baseUrl: server.baseUrl }, undefined);
    assert.ok(setup.ok);
    // As the product uses it: a keep-alive connection the server has closed is tried again.
    client = withRetry(setup.client, { baseDelayMs: 50 });
  });
  after(async () => {
    await server?.stop();
  });

  it('compiles every built-in tool schema alone and all of them together, and an MCP schema with huge limits', async () => {
    const definitions = new ToolRegistry([...builtinTools(), hostileMcpTool()]).definitions();
    assert.ok(definitions.length >= 34, `${definitions.length} tools`);
    for (const definition of definitions) {
      const text = await answer(client, [definition], 'hello there').catch(
        (error: Error) => `${definition.name}: ${error.message}`,
      );
      assert.equal(text, GREETING, `${definition.name} alone`);
    }
    assert.equal(await answer(client, definitions, 'hello there'), GREETING, 'all together');
  });

  it('would fail on the raw schema: the limits really are what llama.cpp cannot compile', async () => {
    const raw = hostileMcpTool().inputJsonSchema!;
    await assert.rejects(
      answer(client, [{ name: 'lookup', description: 'Look a term up.', inputSchema: raw }], 'hello there'),
      /refused the request \(400\): Failed to initialize samplers: failed to parse grammar/,
    );
  });

  it('reads the window the server runs with', async () => {
    assert.equal(await client.server?.contextWindow('default'), 8192);
  });

  it("counts a request's tokens exactly as the server does when it answers it", async () => {
    const tools = new ToolRegistry(builtinTools()).definitions();
    const request: LlmRequest = {
      model: 'default',
      system: 'You are a coding agent. Keep answers short.',
      messages: [{ role: 'user', content: [{ type: 'text', text: `read the ${TRIGGERS.readReadme} file` }] }],
      tools,
      maxOutputTokens: 64,
    };
    const counted = await client.server?.countInputTokens(request);
    let served: number | undefined;
    for await (const part of client.stream(request))
      if (part.type === 'usage') served = part.usage.inputTokens + part.usage.cacheReadTokens;
    assert.ok(counted !== undefined && counted > 2_000);
    assert.equal(counted, served);
  });
});
