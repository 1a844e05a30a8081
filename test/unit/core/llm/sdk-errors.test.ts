/**
 * Failures as the real SDKs raise them, against real sockets: nothing here is a hand-made error
 * object. A closed port, a server that dies mid-answer, one that goes quiet, one that refuses a
 * request as too long, a local server's 500 with its reason.
 */
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLlmClient } from '../../../../src/core/llm/create-llm-client';
import { LlmError, type LlmClient, type LlmStreamPart } from '../../../../src/core/llm/llm-client';
import { withRetry } from '../../../../src/core/llm/retry';
import { withMetering, type MeteredCall } from '../../../../src/core/agent/metered-llm';
import { baseRequest } from './collect-parts';
import { anthropicStart, openAiChunk, SSE } from './sse-fixtures';

interface Served {
  url: string;
  requests: number;
  close(): Promise<void>;
}

async function serve(handler: (request: http.IncomingMessage, response: http.ServerResponse) => void): Promise<Served> {
  const server = http.createServer((request, response) => {
    served.requests++;
    request.resume();
    request.on('end', () => handler(request, response));
  });
  const served: Served = {
    url: '',
    requests: 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  served.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return served;
}

function client(protocol: 'openai' | 'anthropic', url: string, idleTimeoutMs?: number): LlmClient {
  const setup =
    protocol === 'openai'
      ? createLlmClient({ provider: 'llamacpp', model: 'm', baseUrl: `${url}/v1` }, undefined, { idleTimeoutMs })
      : createLlmClient({ provider: 'anthropic', model: 'm', baseUrl: url }, 'sk-ant-test', { idleTimeoutMs });
  assert.ok(setup.ok);
  return setup.client;
}

async function failure(llm: LlmClient): Promise<{ error: LlmError; parts: LlmStreamPart[] }> {
  const parts: LlmStreamPart[] = [];
  try {
    for await (const part of llm.stream(baseRequest)) parts.push(part);
  } catch (error) {
    assert.ok(error instanceof LlmError, `an LlmError, not ${String(error)}`);
    return { error, parts };
  }
  throw new Error('the call did not fail');
}

describe('failures as the real SDKs raise them', function () {
  this.timeout(20_000);

  for (const protocol of ['openai', 'anthropic'] as const) {
    it(`${protocol}: a closed port is a connection problem naming the server`, async () => {
      const server = await serve(() => {});
      const { url } = server;
      await server.close();
      const { error } = await failure(client(protocol, url));
      assert.equal(error.kind, 'connection');
      assert.match(error.message, /^Could not reach .*\(ECONNREFUSED\)\.$/);
      if (protocol === 'openai')
        assert.match(error.message, new RegExp(`llama\\.cpp server at ${url.replace(/\./g, '\\.')}/v1`));
    });

    it(`${protocol}: a server dying mid-answer is a lost connection, not "terminated"`, async () => {
      const server = await serve((request, response) => {
        response.writeHead(200, SSE);
        response.write(protocol === 'openai' ? openAiChunk('Hel') : anthropicStart);
        setTimeout(() => request.socket.destroy(), 50);
      });
      try {
        const { error, parts } = await failure(client(protocol, server.url));
        assert.deepEqual(parts, [{ type: 'text_delta', text: 'Hel' }]);
        assert.equal(error.kind, 'connection');
        assert.match(error.message, /^The connection was lost with /);
      } finally {
        await server.close();
      }
    });

    it(`${protocol}: a stream that goes quiet ends after the idle timeout, and the socket is closed`, async () => {
      let closed = false;
      const server = await serve((request, response) => {
        response.writeHead(200, SSE);
        response.write(protocol === 'openai' ? openAiChunk('Hel') : anthropicStart);
        request.socket.on('close', () => (closed = true));
      });
      try {
        const started = Date.now();
        const { error } = await failure(client(protocol, server.url, 300));
        assert.equal(error.kind, 'connection');
        assert.match(error.message, /sent nothing for 0\.3 s in the middle of its answer/);
        assert.ok(Date.now() - started < 15_000, 'it did not wait for the SDK timeout');
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.ok(closed, 'the connection to the frozen server is closed');
      } finally {
        await server.close();
      }
    });
  }

  it("a refusal as too long is a context overflow carrying the server's window, said once", async () => {
    const server = await serve((_request, response) => {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          error: {
            code: 400,
            message: 'request (9030 tokens) exceeds the available context size (8192 tokens), try increasing it',
            type: 'exceed_context_size_error',
            n_prompt_tokens: 9030,
            n_ctx: 8192,
          },
        }),
      );
    });
    try {
      const { error } = await failure(client('openai', server.url));
      assert.equal(error.kind, 'context_overflow');
      assert.equal(error.contextWindow, 8192);
      assert.doesNotMatch(error.message, /400\): 400/);
      assert.match(error.message, /request \(9030 tokens\) exceeds the available context size/);
    } finally {
      await server.close();
    }
  });

  it('reads the window from vLLM and Anthropic wording of an overflow too', async () => {
    for (const [message, window] of [
      ["This model's maximum context length is 32768 tokens. However, you requested 40000 tokens.", 32_768],
      ['prompt is too long: 210000 tokens > 200000 maximum', 200_000],
    ] as const) {
      const server = await serve((_request, response) => {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message, type: 'invalid_request_error' } }));
      });
      try {
        const { error } = await failure(client('openai', server.url));
        assert.equal(error.kind, 'context_overflow', message);
        assert.equal(error.contextWindow, window);
      } finally {
        await server.close();
      }
    }
  });

  it("a local server's 500 is shown at once in its own words, not retried five times", async () => {
    const server = await serve((_request, response) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ error: { code: 500, message: 'tools param requires --jinja flag', type: 'server_error' } }),
      );
    });
    try {
      const { error } = await failure(withRetry(client('openai', server.url), { baseDelayMs: 1 }));
      assert.equal(server.requests, 1);
      assert.equal(
        error.message,
        `llama.cpp server at ${server.url}/v1 failed (500): tools param requires --jinja flag`,
      );
    } finally {
      await server.close();
    }
  });

  it('a request refused before anything came back is recorded with no tokens', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'Failed to initialize samplers: failed to parse grammar' } }));
    });
    try {
      const calls: MeteredCall[] = [];
      const metered = withMetering(client('openai', server.url), 'chat', {
        before: () => undefined,
        after: (call) => void calls.push(call),
        now: () => 0,
      });
      await failure(metered);
      assert.equal(calls.length, 1);
      assert.deepEqual(calls[0]!.usage, { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
      assert.ok(calls[0]!.estimatedInputTokens > 0);
    } finally {
      await server.close();
    }
  });
});
