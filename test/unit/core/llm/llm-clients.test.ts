/**
 * Both adapters, against the fake model server speaking each wire protocol: the same
 * behaviours must hold whichever vendor is configured.
 */
import assert from 'node:assert/strict';
import { AnthropicClient } from '../../../../src/core/llm/anthropic/anthropic-client';
import type { LlmClient } from '../../../../src/core/llm/llm-client';
import { LlmError } from '../../../../src/core/llm/llm-client';
import { OpenAiClient } from '../../../../src/core/llm/openai/openai-client';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { loadScenario } from '../../../fixtures/fake-model-server/scenario';
import { baseRequest, collectParts, textOf } from './collect-parts';

const adapters: Array<{ name: string; create(server: FakeModelServer, maxRetries?: number): LlmClient }> = [
  {
    name: 'AnthropicClient',
    create: (server, maxRetries = 2) =>
      new AnthropicClient({ apiKey: 'sk-test', baseUrl: server.anthropicBaseUrl, maxRetries }),
  },
  {
    name: 'OpenAiClient',
    create: (server, maxRetries = 2) =>
      new OpenAiClient({
        provider: 'ollama',
        label: 'Ollama',
        apiKey: 'not-needed',
        baseUrl: server.openAiBaseUrl,
        maxRetries,
      }),
  },
];

for (const adapter of adapters) {
  describe(adapter.name, () => {
    let server: FakeModelServer;
    beforeEach(async () => {
      server = await FakeModelServer.start();
    });
    afterEach(() => server.close());

    it('streams text deltas, then usage, then the stop reason', async () => {
      server.setScenario(loadScenario('hello'));
      const { parts, error } = await collectParts(adapter.create(server));
      assert.equal(error, undefined);
      assert.ok(parts.filter((part) => part.type === 'text_delta').length > 5);
      assert.match(textOf(parts), /^Hello from the \*\*fake model\*\*!/);
      assert.deepEqual(parts.at(-2), {
        type: 'usage',
        usage: { inputTokens: 120, outputTokens: 32, cacheReadTokens: 0, cacheWriteTokens: 0 },
        reported: true,
      });
      assert.deepEqual(parts.at(-1), { type: 'finish', stopReason: 'end_turn' });
    });

    it('sends the system prompt, the history and the tools in its wire format', async () => {
      server.setScenario(loadScenario('hello'));
      await collectParts(adapter.create(server));
      const body = server.modelCalls[0]?.body as Record<string, unknown>;
      const serialized = JSON.stringify(body);
      assert.match(serialized, /You are a test\./);
      assert.match(serialized, /"read_file"/);
      assert.match(serialized, /hello/);
      assert.equal(body.stream, true);
    });

    it('assembles a streamed tool call into parsed input', async () => {
      server.setScenario(loadScenario('tool-call'));
      const { parts } = await collectParts(adapter.create(server));
      const call = parts.find((part) => part.type === 'tool_call');
      assert.deepEqual(call, {
        type: 'tool_call',
        id: 'toolu_read_1',
        name: 'read_file',
        input: { path: 'src/app.ts', offset: 1, limit: 200 },
      });
      assert.ok(parts.filter((part) => part.type === 'tool_call_delta').length > 3, 'arguments arrive as fragments');
      assert.deepEqual(parts.at(-1), { type: 'finish', stopReason: 'tool_use' });
    });

    it('turns malformed tool JSON into an invalid call the model can be told about, not a crash', async () => {
      server.setScenario({
        name: 'bad',
        turns: [{ toolCalls: [{ id: 'call_bad', name: 'read_file', rawArguments: '{"path": src/a.ts' }] }],
      });
      const { parts, error } = await collectParts(adapter.create(server));
      assert.equal(error, undefined);
      const invalid = parts.find((part) => part.type === 'tool_call_invalid');
      assert.equal(invalid?.type === 'tool_call_invalid' && invalid.rawArguments, '{"path": src/a.ts');
      assert.ok(!parts.some((part) => part.type === 'tool_call'));
    });

    it('fails with a stream error when the connection drops mid-tool-call, and never completes the call', async () => {
      server.setScenario({
        name: 'cut',
        turns: [
          {
            toolCalls: [{ name: 'write_file', arguments: { path: 'a', content: 'x'.repeat(300) } }],
            fault: { type: 'cut_mid_tool_call' },
          },
        ],
      });
      const { parts, error } = await collectParts(adapter.create(server, 0));
      assert.ok(error instanceof LlmError, `expected an LlmError, got ${String(error)}`);
      assert.ok(parts.some((part) => part.type === 'tool_call_start'));
      assert.ok(!parts.some((part) => part.type === 'tool_call' || part.type === 'tool_call_invalid'));
    });

    it('retries a 429 after retry-after and then answers', async () => {
      server.setScenario({
        name: 'busy',
        turns: [{ text: 'ok', fault: { type: 'http_error', status: 429, retryAfterSeconds: 1 } }],
      });
      const { parts, error } = await collectParts(adapter.create(server));
      assert.equal(error, undefined);
      assert.equal(textOf(parts), 'ok');
      assert.equal(server.modelCalls.length, 2);
    });

    it('reports an overloaded server as a server error once retries are spent', async () => {
      server.setScenario({
        name: 'down',
        turns: [{ text: 'never', fault: { type: 'http_error', status: 529, times: 10 } }],
      });
      const { error } = await collectParts(adapter.create(server, 1));
      assert.ok(error instanceof LlmError);
      assert.equal(error.kind, 'server');
      assert.equal(error.status, 529);
      assert.equal(server.modelCalls.length, 2);
    });

    it('explains a rejected key', async () => {
      server.setScenario({
        name: 'auth',
        turns: [{ text: 'never', fault: { type: 'http_error', status: 401, times: 10 } }],
      });
      const { error } = await collectParts(adapter.create(server));
      assert.ok(error instanceof LlmError);
      assert.equal(error.kind, 'authentication');
      assert.match(error.message, /Set API Key/);
    });

    it('stops at once when aborted', async () => {
      server.setScenario({ name: 'slow', turns: [{ text: 'x'.repeat(400), chunkSize: 4, delayMs: 50 }] });
      const controller = new AbortController();
      const started = Date.now();
      const parts: string[] = [];
      let failure: unknown;
      try {
        for await (const part of adapter.create(server).stream({ ...baseRequest, signal: controller.signal })) {
          if (part.type === 'text_delta') parts.push(part.text);
          if (parts.length === 3) controller.abort();
        }
      } catch (error) {
        failure = error;
      }
      assert.ok(failure, 'an aborted stream ends with an error');
      assert.ok(!(failure instanceof LlmError), 'an abort is not reported as a model failure');
      assert.ok(Date.now() - started < 2_000, 'the stream stopped long before the 5 s answer finished');
    });
  });
}

describe('OpenAiClient with a server that reports no usage', () => {
  it('estimates usage and marks it as an estimate', async () => {
    const server = await FakeModelServer.start({
      scenario: { name: 'no-usage', turns: [{ text: 'a'.repeat(40), usage: null }] },
    });
    try {
      const client = new OpenAiClient({
        provider: 'llamacpp',
        label: 'llama.cpp',
        apiKey: 'x',
        baseUrl: server.openAiBaseUrl,
      });
      const { parts } = await collectParts(client);
      const usage = parts.find((part) => part.type === 'usage');
      assert.equal(usage?.type === 'usage' && usage.reported, false);
      assert.equal(usage?.type === 'usage' && usage.usage.outputTokens, 10);
      assert.ok(usage?.type === 'usage' && usage.usage.inputTokens > 0);
    } finally {
      await server.close();
    }
  });
});

describe('model discovery', () => {
  for (const adapter of adapters) {
    it(`${adapter.name} lists the server's models`, async () => {
      const server = await FakeModelServer.start();
      try {
        assert.deepEqual(await adapter.create(server).listModels(), ['fake-model', 'fake-model-large']);
      } finally {
        await server.close();
      }
    });
  }
});

describe('AnthropicClient specifics', () => {
  it('marks system prompt, tools and recent turns for prompt caching on the wire', async () => {
    const server = await FakeModelServer.start({ scenario: loadScenario('hello') });
    try {
      await collectParts(new AnthropicClient({ apiKey: 'k', baseUrl: server.anthropicBaseUrl }));
      const body = server.modelCalls[0]?.body as {
        system: Array<{ cache_control?: unknown }>;
        tools: Array<{ cache_control?: unknown }>;
        messages: Array<{ content: Array<{ cache_control?: unknown }> }>;
      };
      assert.deepEqual(body.system[0]?.cache_control, { type: 'ephemeral' });
      assert.deepEqual(body.tools.at(-1)?.cache_control, { type: 'ephemeral' });
      assert.deepEqual(body.messages.at(-1)?.content.at(-1)?.cache_control, { type: 'ephemeral' });
    } finally {
      await server.close();
    }
  });

  it('streams thinking and hands back the complete block with its signature', async () => {
    const server = await FakeModelServer.start({
      scenario: {
        name: 'think',
        turns: [{ thinking: { text: 'Let me consider this.', signature: 'sig-abc' }, text: 'Answer.' }],
      },
    });
    try {
      const { parts } = await collectParts(new AnthropicClient({ apiKey: 'k', baseUrl: server.anthropicBaseUrl }));
      assert.ok(parts.some((part) => part.type === 'thinking_delta'));
      assert.deepEqual(
        parts.find((part) => part.type === 'thinking'),
        { type: 'thinking', text: 'Let me consider this.', signature: 'sig-abc' },
      );
    } finally {
      await server.close();
    }
  });
});
