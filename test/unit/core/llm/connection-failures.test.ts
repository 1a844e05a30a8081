/**
 * Network failures through the real clients (createLlmClient, both SDKs) against real local
 * sockets: a refused port, hang-ups before and during the answer, an unknown host, TLS that
 * cannot be set up, a server that never answers. Each must be a `connection` error, retried
 * while nothing has streamed, and end with a message naming the address that was tried.
 */
import assert from 'node:assert/strict';
import { AnthropicClient } from '../../../../src/core/llm/anthropic/anthropic-client';
import { createLlmClient } from '../../../../src/core/llm/create-llm-client';
import { LlmError, type LlmClient, type LlmStreamPart } from '../../../../src/core/llm/llm-client';
import { OpenAiClient } from '../../../../src/core/llm/openai/openai-client';
import { withRetry } from '../../../../src/core/llm/retry';
import { baseRequest } from './collect-parts';
import { anthropicStart, openAiChunk, SSE } from './sse-fixtures';
import {
  closedPort,
  eventually,
  plainHttpBehindHttps,
  selfSignedHttps,
  serveHttp,
  type LocalServer,
} from './local-sockets';

type Protocol = 'openai' | 'anthropic';

/** The real client as the extension makes it, for a llama.cpp server or for Anthropic. */
function client(protocol: Protocol, url: string): LlmClient {
  const setup =
    protocol === 'openai'
      ? createLlmClient({ provider: 'llamacpp', model: 'm', baseUrl: `${url}/v1` }, undefined)
      : createLlmClient({ provider: 'anthropic', model: 'm', baseUrl: url }, 'sk-ant-test-key-0123456789');
  assert.ok(setup.ok, setup.ok ? '' : setup.message);
  return setup.client;
}

/** The address the message must name: the base URL the client was given. */
function addressOf(protocol: Protocol, url: string): string {
  return protocol === 'openai' ? `${url}/v1` : url;
}

interface Outcome {
  error: LlmError;
  parts: LlmStreamPart[];
  retries: number;
}

/** Streams through the retry wrapper (two retries, no real waiting) until the call fails. */
async function failure(llm: LlmClient, signal?: AbortSignal): Promise<Outcome> {
  let retries = 0;
  const retrying = withRetry(llm, {
    maxRetries: 2,
    baseDelayMs: 1,
    maxDelayMs: 1,
    onRetry: () => retries++,
  });
  const parts: LlmStreamPart[] = [];
  try {
    for await (const part of retrying.stream({ ...baseRequest, signal })) parts.push(part);
  } catch (error) {
    assert.ok(error instanceof LlmError, `an LlmError, not ${String(error)}`);
    return { error, parts, retries };
  }
  throw new Error('the call did not fail');
}

const firstData = (protocol: Protocol) => (protocol === 'openai' ? openAiChunk('Hel') : anthropicStart);

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

describe('connection failures through the real SDK clients', function () {
  this.timeout(60_000);
  const servers: LocalServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  async function keep(server: Promise<LocalServer>): Promise<LocalServer> {
    const started = await server;
    servers.push(started);
    return started;
  }

  for (const protocol of ['openai', 'anthropic'] as const) {
    describe(protocol, () => {
      it('a refused port is retried, then named with its address', async () => {
        const url = `http://127.0.0.1:${await closedPort()}`;
        const { error, retries } = await failure(client(protocol, url));
        assert.equal(error.kind, 'connection');
        assert.equal(retries, 2);
        assert.match(
          error.message,
          new RegExp(`^Could not reach .*${escaped(addressOf(protocol, url))} \\(ECONNREFUSED\\)\\.$`),
        );
      });

      it('a server that comes up while the call is retried is reached', async () => {
        const port = await closedPort();
        const url = `http://127.0.0.1:${port}`;
        let started: Promise<LocalServer> | undefined;
        const retrying = withRetry(client(protocol, url), {
          maxRetries: 2,
          // The wait before the retry is when the server starts: no race with a timer.
          sleep: async () => {
            started ??= keep(
              serveHttp((_request, response) => {
                response.writeHead(200, SSE);
                response.end(
                  protocol === 'openai'
                    ? `${openAiChunk('Hello')}data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`
                    : `${anthropicStart}event: message_stop\ndata: {"type":"message_stop"}\n\n`,
                );
              }, port),
            );
            await started;
          },
        });
        const parts: LlmStreamPart[] = [];
        for await (const part of retrying.stream(baseRequest)) parts.push(part);
        assert.ok(started, 'the first attempt was refused and retried');
        assert.equal((await started).requests, 1);
        assert.ok(parts.some((part) => part.type === 'text_delta'));
        assert.equal(parts.at(-1)?.type, 'finish');
      });

      it('a server hanging up before answering is retried, then named as a lost connection', async () => {
        const server = await keep(serveHttp((request) => request.socket.destroy()));
        const { error, retries } = await failure(client(protocol, server.url));
        assert.equal(error.kind, 'connection');
        assert.equal(server.requests, 3, 'the first try and two retries reached the server');
        assert.equal(retries, 2);
        assert.match(
          error.message,
          new RegExp(
            `^The connection was lost with .*${escaped(addressOf(protocol, server.url))} \\(UND_ERR_SOCKET\\)\\.$`,
          ),
        );
      });

      it('a reset right after the headers, before any data, is retried', async () => {
        const server = await keep(
          serveHttp((request, response) => {
            response.writeHead(200, SSE);
            response.flushHeaders();
            // Wait until the headers are out, then reset (RST, not FIN).
            response.once('finish', () => {});
            setImmediate(() => request.socket.resetAndDestroy());
          }),
        );
        const { error, parts } = await failure(client(protocol, server.url));
        assert.deepEqual(parts, []);
        assert.equal(error.kind, 'connection');
        assert.equal(server.requests, 3);
        assert.match(error.message, /^The connection was lost with /);
        assert.match(error.message, new RegExp(escaped(addressOf(protocol, server.url))));
      });

      it('a reset after some of the answer is not retried: what streamed stands', async () => {
        const server = await keep(
          serveHttp((request, response) => {
            response.writeHead(200, SSE);
            response.write(firstData(protocol));
            setTimeout(() => request.socket.resetAndDestroy(), 50);
          }),
        );
        const { error, parts, retries } = await failure(client(protocol, server.url));
        assert.deepEqual(parts, [{ type: 'text_delta', text: 'Hel' }]);
        assert.equal(error.kind, 'connection');
        assert.equal(server.requests, 1);
        assert.equal(retries, 0);
        assert.match(
          error.message,
          new RegExp(
            `^The connection was lost with .*${escaped(addressOf(protocol, server.url))} \\(ECONNRESET\\)\\.$`,
          ),
        );
      });

      it('an unknown host is retried, then named with its address', async () => {
        const url = 'http://nonexistent.invalid';
        const { error, retries } = await failure(client(protocol, url));
        assert.equal(error.kind, 'connection');
        assert.equal(retries, 2);
        assert.match(
          error.message,
          new RegExp(
            `^Could not reach .*${escaped(addressOf(protocol, url))} \\((ENOTFOUND|EAI_AGAIN)\\): its host name was not found\\.$`,
          ),
        );
      });

      it('https to a plain http server is a TLS failure, retried, with the likely cause', async () => {
        const server = await keep(plainHttpBehindHttps());
        const { error, retries } = await failure(client(protocol, server.url));
        assert.equal(error.kind, 'connection');
        assert.equal(retries, 2);
        await eventually(() => server.connections === 3, 'three handshakes reached the server');
        assert.equal(server.requests, 0);
        assert.match(
          error.message,
          new RegExp(
            `^Could not set up a secure connection to .*${escaped(addressOf(protocol, server.url))} \\(ERR_SSL_`,
          ),
        );
        assert.match(error.message, /should the address start with http:\/\//);
      });

      it('a self-signed certificate is a TLS failure, retried, saying the certificate is not trusted', async function () {
        const server = await selfSignedHttps((_request, response) => response.end());
        if (!server) return this.skip();
        servers.push(server);
        const { error, retries } = await failure(client(protocol, server.url));
        assert.equal(error.kind, 'connection');
        assert.equal(retries, 2);
        await eventually(() => server.connections === 3, 'three handshakes reached the server');
        assert.equal(server.requests, 0);
        assert.match(error.message, new RegExp(`${escaped(addressOf(protocol, server.url))} \\([A-Z_]*CERT[A-Z_]*\\)`));
        assert.match(error.message, /certificate is not trusted/);
      });

      it('a server that never answers times out, is retried, and is named', async () => {
        const server = await keep(serveHttp(() => {}));
        // The request timeout is not a setting: the clients are made here as createLlmClient
        // makes them, with a short one.
        const llm =
          protocol === 'openai'
            ? new OpenAiClient({
                provider: 'llamacpp',
                label: `llama.cpp server at ${server.url}/v1`,
                apiKey: 'not-needed',
                baseUrl: `${server.url}/v1`,
                timeoutMs: 200,
              })
            : new AnthropicClient({ apiKey: 'sk-ant-test-key-0123456789', baseUrl: server.url, timeoutMs: 200 });
        const { error, retries } = await failure(llm);
        assert.equal(error.kind, 'connection');
        assert.equal(retries, 2);
        await eventually(() => server.requests === 3, 'three requests reached the server');
        assert.match(
          error.message,
          new RegExp(`^The request timed out at .*${escaped(addressOf(protocol, server.url))}\\.$`),
        );
      });

      it('stopping a call that waits for its answer is a cancellation, not a failure', async () => {
        const server = await keep(serveHttp(() => {}));
        const controller = new AbortController();
        const stream = client(protocol, server.url).stream({ ...baseRequest, signal: controller.signal });
        const ended = (async () => {
          for await (const part of stream) void part;
        })();
        await eventually(() => server.requests === 1, 'the request reached the server');
        controller.abort();
        await assert.rejects(ended, (error: Error) => error.name === 'AbortError' && !(error instanceof LlmError));
      });
    });
  }

  it('names the address without the credentials or query a base URL may carry', async () => {
    const port = await closedPort();
    const setup = createLlmClient(
      { provider: 'openai-compatible', model: 'm', baseUrl: `http://127.0.0.1:${port}/v1?api-key=sk-secret-in-query` },
      undefined,
    );
    assert.ok(setup.ok);
    const { error } = await failure(setup.client);
    assert.equal(error.kind, 'connection');
    assert.match(error.message, new RegExp(`at http://127\\.0\\.0\\.1:${port}/v1 \\(ECONNREFUSED\\)`));
    assert.doesNotMatch(error.message, /secret|api-key/);
  });
});
