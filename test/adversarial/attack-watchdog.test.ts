/**
 * The idle watchdog counts progress, not bytes (issue 32, item 14, attacked): records that say
 * something once (a usage record, a finish, a message's start, a block's start, a tool call's
 * id and name) said again and again, kinds of events the SDK does not know, SSE fields without
 * data, `data: {}`, `event: ping` on the OpenAI wire; tokens that never stop (whitespace,
 * reasoning, a new block each time) against a small max_tokens; and a finished answer whose
 * server keeps the connection open. Every server here is a real local socket that misbehaves
 * on purpose; the idle limit is 600 ms, so a fix that fails makes the stream run until the test
 * gives up (the deadline), never a false pass.
 */
import assert from 'node:assert/strict';
import type * as http from 'node:http';
import { createLlmClient } from '../../src/core/llm/create-llm-client';
import { LlmError, type LlmClient, type LlmStreamPart } from '../../src/core/llm/llm-client';
import { baseRequest } from '../unit/core/llm/collect-parts';
import { serveHttp, type LocalServer } from '../unit/core/llm/local-sockets';
import { TEST_TIMEOUT_MS } from '../harness/patience';

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
const IDLE_MS = 600;
const DEADLINE_MS = 60_000;

const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta, ...extra }] })}\n\n`;
const usage = `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } })}\n\n`;
const finish = chunk({}, { finish_reason: 'stop' });
const anthropicEvent = (type: string, data: Record<string, unknown> = {}) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const messageStart = anthropicEvent('message_start', {
  message: {
    id: 'm',
    type: 'message',
    role: 'assistant',
    content: [],
    model: 'm',
    usage: { input_tokens: 5, output_tokens: 0 },
  },
});
const textStart = anthropicEvent('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
const hello = anthropicEvent('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hel' } });

const servers: LocalServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** A server that answers `prefix`, then `filler(n)` every `everyMs` until the client hangs up. */
async function filling(prefix: string, filler: (n: number) => string, everyMs = 20): Promise<LocalServer> {
  const server = await serveHttp((_request: http.IncomingMessage, response: http.ServerResponse) => {
    response.writeHead(200, SSE_HEADERS);
    response.write(prefix);
    let n = 0;
    const timer = setInterval(() => response.write(filler(n++)), everyMs);
    response.on('close', () => clearInterval(timer));
  });
  servers.push(server);
  return server;
}

function client(provider: 'llamacpp' | 'anthropic', url: string): LlmClient {
  const setup = createLlmClient(
    { provider, model: 'm', baseUrl: provider === 'anthropic' ? url : `${url}/v1` },
    provider === 'anthropic' ? 'sk-ant-test-0123456789' : undefined,
    { idleTimeoutMs: IDLE_MS },
  );
  assert.ok(setup.ok);
  return setup.client;
}

/** Every part, or the parts so far and the error; fails if the stream is still going at the deadline. */
async function streamAll(llm: LlmClient, maxOutputTokens = 1024): Promise<{ parts: LlmStreamPart[]; error: unknown }> {
  const parts: LlmStreamPart[] = [];
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), DEADLINE_MS);
  try {
    for await (const part of llm.stream({ ...baseRequest, tools: [], maxOutputTokens, signal: controller.signal }))
      parts.push(part);
    return { parts, error: undefined };
  } catch (error) {
    return { parts, error };
  } finally {
    clearTimeout(timer);
    assert.ok(!controller.signal.aborted, `the stream was still going ${DEADLINE_MS / 1000} s later`);
  }
}

function assertIdle(error: unknown): void {
  assert.ok(error instanceof LlmError, `an LlmError, not ${String(error)}`);
  assert.match(error.message, /sent nothing for 0\.6 s in the middle of its answer/);
}

const text = (parts: LlmStreamPart[]) => parts.map((part) => (part.type === 'text_delta' ? part.text : '')).join('');

describe('attack: records repeated forever are not progress', function () {
  this.timeout(TEST_TIMEOUT_MS);

  const openAi: Record<string, string> = {
    'a usage record': usage,
    'a tool call’s id and name with empty arguments': chunk({
      tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '' } }],
    }),
    'data: {}': 'data: {}\n\n',
    'event: ping with data: {}': 'event: ping\ndata: {}\n\n',
    'SSE fields without data (id:, retry:)': 'id: 7\nretry: 1000\n\n',
    'a null content delta': chunk({ content: null }),
    'choices: [] with no usage': `data: ${JSON.stringify({ id: 'c', choices: [] })}\n\n`,
  };
  for (const [name, filler] of Object.entries(openAi)) {
    it(`OpenAI wire: ${name}, again and again`, async () => {
      const server = await filling(chunk({ content: 'Hel' }), () => filler);
      const { parts, error } = await streamAll(client('llamacpp', server.url));
      assertIdle(error);
      assert.equal(text(parts), 'Hel');
    });
  }

  const anthropic: Record<string, string> = {
    'message_delta (usage)': anthropicEvent('message_delta', {
      delta: { stop_reason: null },
      usage: { output_tokens: 1 },
    }),
    'the same block started again': textStart,
    'message_start again': messageStart,
    'an event of a kind the SDK does not know': anthropicEvent('future_keepalive', { note: 'still here' }),
    pings: anthropicEvent('ping'),
  };
  for (const [name, filler] of Object.entries(anthropic)) {
    it(`Anthropic wire: ${name}, again and again`, async () => {
      const server = await filling(messageStart + textStart + hello, () => filler);
      const { error } = await streamAll(client('anthropic', server.url));
      assertIdle(error);
    });
  }
});

describe('attack: tokens that never stop are ended by their amount, not by time', function () {
  this.timeout(TEST_TIMEOUT_MS);

  const endless: Record<string, { provider: 'llamacpp' | 'anthropic'; prefix: string; filler: (n: number) => string }> =
    {
      'whitespace-only content': { provider: 'llamacpp', prefix: '', filler: () => chunk({ content: ' ' }) },
      'reasoning tokens': { provider: 'llamacpp', prefix: '', filler: () => chunk({ reasoning_content: 'hmm ' }) },
      'tool-call argument fragments': {
        provider: 'llamacpp',
        prefix: chunk({
          tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '' } }],
        }),
        filler: () => chunk({ tool_calls: [{ index: 0, function: { arguments: ' ' } }] }),
      },
      'a new text block each time (Anthropic)': {
        provider: 'anthropic',
        prefix: messageStart,
        filler: (n) => anthropicEvent('content_block_start', { index: n, content_block: { type: 'text', text: '' } }),
      },
    };
  for (const [name, { provider, prefix, filler }] of Object.entries(endless)) {
    it(`${name} beyond what max_tokens allows`, async () => {
      const server = await filling(prefix, filler, 1);
      const { error } = await streamAll(client(provider, server.url), 16);
      assert.ok(error instanceof LlmError, `an LlmError, not ${String(error)}`);
      assert.equal(error.kind, 'stream');
      assert.match(error.message, /sent far more than the answer it was asked for/);
    });
  }

  it('is not fooled the other way: a long answer within max_tokens is whole', async () => {
    const server = await serveHttp((_request, response) => {
      response.writeHead(200, SSE_HEADERS);
      for (let index = 0; index < 1_500; index++) response.write(chunk({ content: 'a' }));
      response.end(finish + 'data: [DONE]\n\n');
    });
    servers.push(server);
    const { parts, error } = await streamAll(client('llamacpp', server.url), 1_500);
    assert.equal(error, undefined, String(error));
    assert.equal(text(parts).length, 1_500);
  });
});

describe('attack: a finished answer whose server keeps the connection open', function () {
  this.timeout(TEST_TIMEOUT_MS);

  const after: Record<string, { provider: 'llamacpp' | 'anthropic'; prefix: string; filler: string }> = {
    'keep-alives after [DONE]': {
      provider: 'llamacpp',
      prefix: chunk({ content: 'Hello.' }) + finish + usage + 'data: [DONE]\n\n',
      filler: ': keep-alive\n\n',
    },
    '[DONE] again and again': {
      provider: 'llamacpp',
      prefix: chunk({ content: 'Hello.' }) + finish + 'data: [DONE]\n\n',
      filler: 'data: [DONE]\n\n',
    },
    'the finish again and again, no [DONE]': {
      provider: 'llamacpp',
      prefix: chunk({ content: 'Hello.' }) + finish,
      filler: finish,
    },
    'pings after message_stop (Anthropic)': {
      provider: 'anthropic',
      prefix:
        messageStart +
        textStart +
        anthropicEvent('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hello.' } }) +
        anthropicEvent('content_block_stop', { index: 0 }) +
        anthropicEvent('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } }) +
        anthropicEvent('message_stop'),
      filler: anthropicEvent('ping'),
    },
  };
  for (const [name, { provider, prefix, filler }] of Object.entries(after)) {
    it(`${name}: the answer stands, no error`, async () => {
      // An hour's idle limit: only the end of the answer can let the stream go.
      const server = await filling(prefix, () => filler);
      const setup = createLlmClient(
        { provider, model: 'm', baseUrl: provider === 'anthropic' ? server.url : `${server.url}/v1` },
        provider === 'anthropic' ? 'sk-ant-test-0123456789' : undefined,
        { idleTimeoutMs: 3_600_000 },
      );
      assert.ok(setup.ok);
      const { parts, error } = await streamAll(setup.client);
      assert.equal(error, undefined, String(error));
      assert.equal(text(parts), 'Hello.');
      assert.equal(parts.at(-1)?.type, 'finish');
    });
  }
});
