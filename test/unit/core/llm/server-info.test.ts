import assert from 'node:assert/strict';
import { OLLAMA_DEFAULT_CONTEXT, OpenAiServerInfo } from '../../../../src/core/llm/openai/server-info';
import { createLlmClient } from '../../../../src/core/llm/create-llm-client';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import type { EngineShape } from '../../../fixtures/fake-model-server/engine-shapes';
import { serveFixedBody } from '../../../fixtures/json-server';

async function windowFrom(provider: 'llamacpp' | 'ollama' | 'lmstudio' | 'vllm', engine: EngineShape) {
  const server = await FakeModelServer.start({ engine });
  try {
    const setup = createLlmClient({ provider, model: engine.model, baseUrl: server.openAiBaseUrl }, undefined);
    assert.ok(setup.ok);
    return await setup.client.server?.contextWindow(engine.model);
  } finally {
    await server.close();
  }
}

/** A server answering every path with `body` (status 200 unless said). */

describe('the context window, as each local engine says it', () => {
  it('llama.cpp: the slot window from /props', async () => {
    assert.equal(await windowFrom('llamacpp', { kind: 'llamacpp', model: 'default', contextWindow: 8192 }), 8192);
  });

  it('Ollama: the live window of a loaded model, else num_ctx from the Modelfile', async () => {
    assert.equal(
      await windowFrom('ollama', { kind: 'ollama', model: 'qwen3-coder', contextWindow: 16_384, loaded: true }),
      16_384,
    );
    assert.equal(await windowFrom('ollama', { kind: 'ollama', model: 'qwen3-coder', contextWindow: 12_288 }), 12_288);
  });

  it("Ollama without num_ctx: its default, not the model's trained maximum", async () => {
    const server = await serveFixedBody(
      '{"parameters":"temperature 0.7","model_info":{"qwen3.context_length":262144}}',
    );
    try {
      const info = new OpenAiServerInfo('ollama', server.url);
      assert.equal(await info.contextWindow('qwen3-coder'), OLLAMA_DEFAULT_CONTEXT);
    } finally {
      await server.close();
    }
  });

  it('LM Studio: the loaded window; a model not loaded yet says nothing (its maximum is no promise)', async () => {
    assert.equal(
      await windowFrom('lmstudio', {
        kind: 'lmstudio',
        model: 'qwen2.5-coder-7b',
        contextWindow: 32_768,
        loaded: true,
      }),
      32_768,
    );
    assert.equal(
      await windowFrom('lmstudio', { kind: 'lmstudio', model: 'qwen2.5-coder-7b', contextWindow: 32_768 }),
      undefined,
    );
  });

  it('vLLM: max_model_len of the model in /v1/models', async () => {
    assert.equal(
      await windowFrom('vllm', { kind: 'vllm', model: 'Qwen/Qwen3-Coder-30B', contextWindow: 65_536 }),
      65_536,
    );
  });

  it('hosted APIs are not asked', () => {
    const setup = createLlmClient({ provider: 'openai', model: '', baseUrl: '' }, 'sk-test');
    assert.ok(setup.ok);
    assert.equal(setup.client.server, undefined);
  });

  it('ignores what makes no sense: HTML, errors, negative, fractional and absurd numbers', async () => {
    for (const [body, status] of [
      ['<html>not here</html>', 200],
      ['{"error":"nope"}', 500],
      ['{"default_generation_settings":{"n_ctx":-5}}', 200],
      ['{"default_generation_settings":{"n_ctx":4096.5}}', 200],
      ['{"default_generation_settings":{"n_ctx":1e300}}', 200],
      ['{"default_generation_settings":{"n_ctx":"lots"}}', 200],
      ['{"__proto__":{"n_ctx":4096}}', 200],
    ] as const) {
      const server = await serveFixedBody(body, status);
      try {
        assert.equal(await new OpenAiServerInfo('llamacpp', server.url).contextWindow('m'), undefined, body);
      } finally {
        await server.close();
      }
    }
  });

  it("Ollama's default is a guess until the model is loaded: asked again later, then the live window counts", async () => {
    const notLoaded = await serveFixedBody('{"models":[],"parameters":"temperature 0.7"}');
    const loaded = await serveFixedBody('{"models":[{"name":"qwen3-coder:latest","context_length":32768}]}');
    try {
      let now = 0;
      let target = notLoaded.url;
      // One address whose server goes from "not loaded" to "loaded", as Ollama's does after the first call.
      const info = new OpenAiServerInfo('ollama', 'http://ollama.test/v1', {
        fetch: (input, init) => fetch(String(input).replace('http://ollama.test', target.replace(/\/v1$/, '')), init),
        now: () => now,
      });
      assert.equal(await info.contextWindow('qwen3-coder'), OLLAMA_DEFAULT_CONTEXT);
      target = loaded.url;
      now += 1_000;
      assert.equal(await info.contextWindow('qwen3-coder'), OLLAMA_DEFAULT_CONTEXT, 'not asked again at once');
      now += 60_000;
      assert.equal(await info.contextWindow('qwen3-coder'), 32_768);
    } finally {
      await notLoaded.close();
      await loaded.close();
    }
  });

  it('asks the server once per model', async () => {
    const server = await FakeModelServer.start({ engine: { kind: 'llamacpp', model: 'default', contextWindow: 4096 } });
    try {
      const info = new OpenAiServerInfo('llamacpp', server.openAiBaseUrl);
      await info.contextWindow('default');
      await info.contextWindow('default');
      assert.equal(server.requests.filter((request) => request.path === '/props').length, 1);
    } finally {
      await server.close();
    }
  });
});
