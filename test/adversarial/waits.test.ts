/**
 * Waits that must end (issue 32, items 13–15), through the product's own code paths:
 * - the idle watchdog counts progress, not bytes: a server that sends only keep-alive comments,
 *   pings or empty deltas (before the answer or in the middle of it) is timed out;
 * - an answer that pauses mid-way is said to (model_call `stalled`), and cleared when it goes on;
 * - Ctrl+C (SIGINT to the CLI) ends every wait at once: the window probe, the token count, the
 *   first token, a retry's sleep — and the prompt is kept in the store;
 * - a tool result larger than what the window has left is cut for the model, saying how to read
 *   the rest, while the user's copy stays whole.
 * The servers are real local sockets (node:http) that misbehave on purpose.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { ModelTurn } from '../../src/core/agent/model-turn';
import { cutToolResult, shareRoom } from '../../src/core/agent/context/fit-tool-results';
import { ContextMeasure } from '../../src/core/agent/context/context-measure';
import { createLlmClient } from '../../src/core/llm/create-llm-client';
import { LlmError, type LlmClient, type LlmStreamPart, type ToolResultPart } from '../../src/core/llm/llm-client';
import { OpenAiServerInfo } from '../../src/core/llm/openai/server-info';
import type { AgentEvent } from '../../src/core/events/events';
import { baseRequest } from '../unit/core/llm/collect-parts';
import { serveHttp, type LocalServer } from '../unit/core/llm/local-sockets';
import { eventually, interruptCli, runCli, startCli, tempFolder } from '../unit/cli/cli-helpers';
import { TEST_TIMEOUT_MS } from '../harness/patience';

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta, ...extra }] })}\n\n`;
const finish = chunk({}, { finish_reason: 'stop' }) + 'data: [DONE]\n\n';

/** What a server sends that carries no answer, in OpenAI's wire format. */
const OPENAI_FILLERS: Record<string, string> = {
  'keep-alive comments': ': keep-alive\n\n',
  'blank lines': '\n\n\n',
  'empty content deltas': chunk({ content: '' }),
  'empty deltas': chunk({}),
  'role-only deltas': chunk({ role: 'assistant' }),
  'empty reasoning deltas': chunk({ reasoning_content: '' }),
  'empty tool-call fragments': chunk({ tool_calls: [{ index: 0, function: { arguments: '' } }] }),
  'events without choices': `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [] })}\n\n`,
};

/** The same for Anthropic's wire format. */
const anthropicEvent = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const ANTHROPIC_START =
  anthropicEvent('message_start', {
    message: {
      id: 'm',
      type: 'message',
      role: 'assistant',
      content: [],
      model: 'm',
      usage: { input_tokens: 5, output_tokens: 0 },
    },
  }) + anthropicEvent('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
const ANTHROPIC_FILLERS: Record<string, string> = {
  pings: anthropicEvent('ping', {}),
  'empty text deltas': anthropicEvent('content_block_delta', { index: 0, delta: { type: 'text_delta', text: '' } }),
};

const servers: LocalServer[] = [];
async function serve(handler: (request: http.IncomingMessage, response: http.ServerResponse) => void) {
  const server = await serveHttp(handler);
  servers.push(server);
  return server;
}

/** A server that answers `prefix`, then sends `filler` every 50 ms until the client hangs up. */
function filling(prefix: string, filler: string) {
  return serve((_request, response) => {
    response.writeHead(200, SSE_HEADERS);
    response.write(prefix);
    const timer = setInterval(() => response.write(filler), 50);
    response.on('close', () => clearInterval(timer));
  });
}

function openAiClient(url: string, options: { idleTimeoutMs?: number; silenceNoticeMs?: number } = {}): LlmClient {
  const setup = createLlmClient({ provider: 'llamacpp', model: 'm', baseUrl: `${url}/v1` }, undefined, options);
  assert.ok(setup.ok);
  return setup.client;
}

function anthropicClient(url: string, idleTimeoutMs: number): LlmClient {
  const setup = createLlmClient({ provider: 'anthropic', model: 'm', baseUrl: url }, 'sk-ant-test-0123456789', {
    idleTimeoutMs,
  });
  assert.ok(setup.ok);
  return setup.client;
}

async function streamAll(llm: LlmClient): Promise<{ parts: LlmStreamPart[]; error: unknown }> {
  const parts: LlmStreamPart[] = [];
  try {
    for await (const part of llm.stream({ ...baseRequest, tools: [] })) parts.push(part);
    return { parts, error: undefined };
  } catch (error) {
    return { parts, error };
  }
}

function assertTimedOut(error: unknown): void {
  assert.ok(error instanceof LlmError, `an LlmError, not ${String(error)}`);
  assert.equal(error.kind, 'connection');
  assert.match(error.message, /sent nothing for 0\.6 s in the middle of its answer/);
}

afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

describe('waits: a server that sends bytes but no answer is timed out', function () {
  this.timeout(TEST_TIMEOUT_MS);

  for (const [name, filler] of Object.entries(OPENAI_FILLERS)) {
    it(`OpenAI wire, ${name} before the answer`, async () => {
      const server = await filling('', filler);
      const { parts, error } = await streamAll(openAiClient(server.url, { idleTimeoutMs: 600 }));
      assertTimedOut(error);
      assert.equal(parts.filter((part) => part.type === 'text_delta').length, 0);
    });

    it(`OpenAI wire, ${name} in the middle of the answer`, async () => {
      const server = await filling(chunk({ content: 'Hel' }), filler);
      const { parts, error } = await streamAll(openAiClient(server.url, { idleTimeoutMs: 600 }));
      assertTimedOut(error);
      assert.deepEqual(
        parts.filter((part) => part.type === 'text_delta'),
        [{ type: 'text_delta', text: 'Hel' }],
      );
    });
  }

  for (const [name, filler] of Object.entries(ANTHROPIC_FILLERS)) {
    it(`Anthropic wire, ${name} in the middle of the answer`, async () => {
      const server = await filling(
        ANTHROPIC_START +
          anthropicEvent('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hel' } }),
        filler,
      );
      const { error } = await streamAll(anthropicClient(server.url, 600));
      assertTimedOut(error);
    });
  }

  it('is not fooled the other way: slow reasoning tokens are progress, however long they last in all', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, SSE_HEADERS);
      let sent = 0;
      const timer = setInterval(() => {
        // 12 tokens 200 ms apart (2.4 s in all) under a 600 ms idle limit, then the answer.
        if (sent++ < 12) return void response.write(chunk({ reasoning_content: 'hmm ' }));
        clearInterval(timer);
        response.end(chunk({ content: 'Done.' }) + finish);
      }, 200);
      response.on('close', () => clearInterval(timer));
    });
    const { parts, error } = await streamAll(openAiClient(server.url, { idleTimeoutMs: 600 }));
    assert.equal(error, undefined, String(error));
    assert.ok(parts.some((part) => part.type === 'text_delta' && part.text === 'Done.'));
  });
});

describe('waits: an answer that pauses mid-way is said to', function () {
  this.timeout(TEST_TIMEOUT_MS);

  it('emits model_call "stalled" after the pause, with its length, and "answering" when it goes on', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, SSE_HEADERS);
      response.write(chunk({ content: 'Hel' }));
      // 1.5 s of keep-alives (no progress), then the rest of the answer.
      const timer = setInterval(() => response.write(': keep-alive\n\n'), 50);
      setTimeout(() => {
        clearInterval(timer);
        response.end(chunk({ content: 'lo' }) + finish);
      }, 1_500);
      response.on('close', () => clearInterval(timer));
    });
    const events: Array<Partial<AgentEvent> & { type: string }> = [];
    const turn = new ModelTurn(openAiClient(server.url, { idleTimeoutMs: 10_000, silenceNoticeMs: 400 }), (body) =>
      events.push(body as Partial<AgentEvent> & { type: string }),
    );
    await turn.run({ ...baseRequest, tools: [] });
    assert.equal(turn.text, 'Hello');
    const lifeSigns = events
      .filter((event) => event.type === 'model_call')
      .map((event) => (event as { state: string }).state);
    assert.deepEqual(lifeSigns, ['waiting', 'answering', 'stalled', 'answering']);
    const stalled = events.find((event) => (event as { state?: string }).state === 'stalled') as { silentMs: number };
    assert.ok(stalled.silentMs >= 400, `the pause so far: ${stalled.silentMs} ms`);
    // The notice came between the two parts of the text.
    const order = events.map((event) =>
      event.type === 'text_delta' ? (event as { text: string }).text : (event as { state?: string }).state,
    );
    assert.ok(order.indexOf('stalled') > order.indexOf('Hel') && order.indexOf('stalled') < order.indexOf('lo'));
  });

  it('says nothing for an answer that streams steadily', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, SSE_HEADERS);
      let sent = 0;
      const timer = setInterval(() => {
        if (sent++ < 8) return void response.write(chunk({ content: 'tick ' }));
        clearInterval(timer);
        response.end(finish);
      }, 100);
    });
    const states: string[] = [];
    const turn = new ModelTurn(openAiClient(server.url, { silenceNoticeMs: 400 }), (body) => {
      if (body.type === 'model_call') states.push(body.state);
    });
    await turn.run({ ...baseRequest, tools: [] });
    assert.deepEqual(states, ['waiting', 'answering']);
  });
});

/**
 * A llama.cpp-shaped server: /props, /v1/models, /apply-template, /tokenize and the chat, each
 * answering, or (named in `frozen`) never answering; `chat` may be a 503 with a long retry-after.
 */
async function llamaLike(options: { frozen?: string[]; chat?: 'answer' | 'busy' | 'freeze' }) {
  const seen: string[] = [];
  const held: http.ServerResponse[] = [];
  const server = await serve((request, response) => {
    const route = (request.url ?? '').split('?')[0]!;
    seen.push(route);
    if (options.frozen?.includes(route)) return void held.push(response);
    const json = (body: unknown) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (route === '/props') return json({ default_generation_settings: { n_ctx: 8192 } });
    if (route === '/v1/models') return json({ data: [{ id: 'm', meta: { n_ctx: 8192 } }] });
    if (route === '/apply-template') return json({ prompt: 'the prompt' });
    if (route === '/tokenize') return json({ tokens: new Array(3000).fill(1) });
    if (route === '/v1/chat/completions') {
      if (options.chat === 'freeze') return void held.push(response);
      if (options.chat === 'busy') {
        response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '59' });
        return void response.end(JSON.stringify({ error: { message: 'Loading model' } }));
      }
      response.writeHead(200, SSE_HEADERS);
      return void response.end(chunk({ content: 'Hello from the fake.' }) + finish);
    }
    response.writeHead(404);
    response.end();
  });
  return { server, seen, baseUrl: `${server.url}/v1` };
}

/**
 * Whether the CLI has exited within `ms`: every other way out of the waits below takes far
 * longer (probes and counts on an hour's timeout, the idle timeout an hour, four retry-afters of
 * 59 s), so only the Stop itself can end them within this generous deadline.
 */
async function exitWithin(cli: ReturnType<typeof startCli>, ms: number) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([cli.finished, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Everything but a Stop waits an hour (probes, counts, the idle watchdog). */
const WAIT_AN_HOUR = ['--probe-timeout', '3600', '--idle-timeout', '3600'];
const STOP_DEADLINE_MS = 60_000;

describe('waits: Ctrl+C ends every wait at once, and keeps the prompt', function () {
  this.timeout(TEST_TIMEOUT_MS);

  const cases: Array<{ name: string; frozen?: string[]; chat?: 'busy' | 'freeze'; waitsOn: string }> = [
    { name: 'the window probe', frozen: ['/props', '/v1/models'], waitsOn: '/props' },
    { name: 'the token count', frozen: ['/apply-template'], waitsOn: '/apply-template' },
    { name: 'the first token', chat: 'freeze', waitsOn: '/v1/chat/completions' },
    { name: "a retry's sleep (503, retry-after 59 s)", chat: 'busy', waitsOn: '/v1/chat/completions' },
  ];
  for (const scenario of cases) {
    it(`while waiting on ${scenario.name}`, async () => {
      const fake = await llamaLike(scenario);
      const store = tempFolder('waits-store');
      const cwd = tempFolder('waits-ws');
      const marker = `marker-prompt-${Math.random().toString(36).slice(2)}`;
      const cli = startCli(
        ['--store', store, '--provider', 'llamacpp', '--base-url', fake.baseUrl, ...WAIT_AN_HOUR, marker],
        { cwd },
      );
      await eventually(() => fake.seen.includes(scenario.waitsOn), `the CLI to reach ${scenario.waitsOn}`);
      interruptCli(cli);
      const ran = await exitWithin(cli, STOP_DEADLINE_MS);
      if (!ran) cli.child.kill('SIGKILL');
      assert.ok(ran, `still waiting on ${scenario.name} ${STOP_DEADLINE_MS / 1000} s after Ctrl+C`);
      assert.equal(ran.code, 130, ran.stderr);
      assert.match(ran.stderr, /\(interrupted\)/);
      // The turn is kept: the store lists the conversation with the prompt.
      const history = await runCli(['--store', store, '-i'], { cwd, input: '/history\n' });
      assert.match(history.stdout, new RegExp(marker));
    });
  }

  it('a Stop that lands between two waits stops the second one too (the shared window probe is not poisoned)', async () => {
    const fake = await llamaLike({});
    const info = new OpenAiServerInfo('llamacpp', fake.baseUrl);
    const stopped = new AbortController();
    stopped.abort();
    await assert.rejects(info.contextWindow('m', stopped.signal), { name: 'AbortError' });
    await assert.rejects(info.countInputTokens({ ...baseRequest, signal: stopped.signal }, stopped.signal), {
      name: 'AbortError',
    });
    const measure = new ContextMeasure(() => undefined);
    await assert.rejects(measure.windowFor('llamacpp', 'm', info, stopped.signal), { name: 'AbortError' });
    // The next caller, not stopped, gets the server's real window, not a cached "unknown".
    assert.equal(await measure.windowFor('llamacpp', 'm', info), 8192);
  });
});

describe('waits: a tool result larger than the window has left', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const numbered = (count: number, start = 1) =>
    Array.from(
      { length: count },
      (_, index) => `${String(start + index).padStart(3)}\talpha${index} beta gamma delta`,
    ).join('\n');
  const result = (output: string, toolName = 'read_file'): ToolResultPart => ({
    type: 'tool_result',
    toolCallId: 'call-1',
    toolName,
    output,
    isError: false,
  });

  it('a read is cut after whole lines and names the line to read on from', () => {
    const cut = cutToolResult(result(numbered(400)), { path: 'big.txt' }, 3_000).output;
    assert.ok(cut.length <= 3_000, `${cut.length} characters`);
    const last = Number(/(\d+)\talpha\d+ beta gamma delta\n\[Cut/.exec(cut)?.[1]);
    assert.ok(last > 10 && last < 400);
    assert.match(cut, new RegExp(`Read the rest with read_file path "big\\.txt", offset ${last + 1}, limit \\d+`));
    assert.match(cut, /lines 1–\d+ of the 1–400 read are shown/);
  });

  it('a read from an offset says the lines it holds', () => {
    const cut = cutToolResult(result(numbered(300, 101)), { path: 'src/a.ts', offset: 101 }, 2_000).output;
    assert.match(cut, /lines 101–\d+ of the 101–400 read are shown/);
  });

  it('one line of 30,000 characters (minified code) is cut, with a note, whatever the tool', () => {
    for (const toolName of ['read_file', 'bash', 'search_files']) {
      const cut = cutToolResult(result('x'.repeat(30_000), toolName), { path: 'min.js' }, 2_500).output;
      assert.ok(cut.length <= 2_500, `${toolName}: ${cut.length}`);
      assert.match(cut, /cut here to fit the model's context window/);
    }
  });

  it('never splits an emoji in two', () => {
    const cut = cutToolResult(result('😀'.repeat(5_000), 'bash'), {}, 2_000).output;
    assert.doesNotMatch(cut, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });

  it("a command's output keeps its beginning and its end (where the error is)", () => {
    const output = `${'compiling...\n'.repeat(2_000)}error TS2322: the real problem\n`;
    const cut = cutToolResult(result(output, 'bash'), {}, 2_000).output;
    assert.match(cut, /^compiling\.\.\./);
    assert.match(cut, /error TS2322: the real problem\n?$/);
  });

  it('five large results of one turn share the room; a small one stays whole', () => {
    const results = [...Array.from({ length: 5 }, () => result(numbered(400))), result('small and whole', 'bash')];
    const shared = shareRoom(
      results,
      results.map(() => ({ path: 'big.txt' })),
      10_000,
    );
    assert.equal(shared[5]!.output, 'small and whole');
    const total = shared.reduce((sum, part) => sum + part.output.length, 0);
    assert.ok(total <= 10_000 + 5 * 100, `${total} characters in all`);
    for (const part of shared.slice(0, 5)) assert.match(part.output, /Read the rest with read_file/);
  });

  it('through the CLI: a 400-line read on an 8k window reaches the model cut, the user sees it whole', async () => {
    const requests: Array<{ messages: Array<{ role: string; content: unknown }> }> = [];
    const server = http.createServer((request, response) => {
      let body = '';
      request.on('data', (data: Buffer) => (body += data.toString('utf8')));
      request.on('end', () => {
        if ((request.url ?? '').split('?')[0] !== '/v1/chat/completions') {
          response.writeHead(404);
          return void response.end();
        }
        requests.push(JSON.parse(body) as (typeof requests)[number]);
        response.writeHead(200, SSE_HEADERS);
        const call = chunk({
          tool_calls: [
            {
              index: 0,
              id: 'call-big',
              type: 'function',
              function: { name: 'read_file', arguments: '{"path":"big.txt"}' },
            },
          ],
        });
        response.end(
          requests.length === 1
            ? `${call}${chunk({}, { finish_reason: 'tool_calls' })}data: [DONE]\n\n`
            : chunk({ content: 'Read it.' }) + finish,
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const cwd = tempFolder('waits-ws');
      const lines = Array.from({ length: 400 }, (_, index) => `line ${index + 1}: ${'lorem ipsum dolor '.repeat(3)}`);
      fs.writeFileSync(path.join(cwd, 'big.txt'), `${lines.join('\n')}\n`);
      const ran = await runCli(
        [
          '--store',
          tempFolder('waits-store'),
          '--provider',
          'llamacpp',
          '--base-url',
          `http://127.0.0.1:${port}/v1`,
          '--context-window',
          '8192',
          'read big.txt',
        ],
        { cwd },
      );
      assert.equal(ran.code, 0, ran.stderr);
      assert.equal(ran.stdout.trim(), 'Read it.');
      // The user's copy: the whole read.
      assert.match(ran.stderr, /● read_file big\.txt\n\s+✓ 401 lines/);
      assert.doesNotMatch(ran.stderr, /compacted/);
      // The model's copy: cut, with the way to the rest.
      const toolMessage = requests[1]!.messages.find((message) => message.role === 'tool')!;
      const text = typeof toolMessage.content === 'string' ? toolMessage.content : JSON.stringify(toolMessage.content);
      assert.match(text, /^\s*1\tline 1: lorem/);
      assert.match(text, /Read the rest with read_file path "big\.txt", offset \d+/);
      assert.ok(text.length < 20_000, `${text.length} characters sent`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
