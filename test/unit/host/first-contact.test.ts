import assert from 'node:assert/strict';
import {
  discoverLocalServers,
  localServerCandidates,
  shortModelName,
  USUAL_LOCAL_SERVERS,
  type LocalServer,
} from '../../../src/core/llm/local-servers';
import type { HostToWebview } from '../../../src/protocol/messages';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { fakeChatHost } from '../../fixtures/fake-chat-host';
import { serveFixedBody } from '../../fixtures/json-server';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('first contact: local model servers on this machine', () => {
  it('looks at the usual ports of Ollama, LM Studio, llama.cpp and vLLM, or where OPENAGENT_LOCAL_SERVERS says', () => {
    assert.deepEqual(
      USUAL_LOCAL_SERVERS.map((candidate) => candidate.baseUrl),
      ['http://127.0.0.1:11434/v1', 'http://127.0.0.1:1234/v1', 'http://127.0.0.1:8080/v1', 'http://127.0.0.1:8000/v1'],
    );
    assert.deepEqual(
      localServerCandidates(' ollama=http://127.0.0.1:11500/v1 , bogus=x, vllm=ftp://no,llamacpp=http://h:9/v1'),
      [
        { provider: 'ollama', baseUrl: 'http://127.0.0.1:11500/v1' },
        { provider: 'llamacpp', baseUrl: 'http://h:9/v1' },
      ],
    );
  });

  it('finds the servers that answer, with their models, each in its own listing', async () => {
    const ollama = await FakeModelServer.start({
      engine: { kind: 'ollama', model: 'qwen3-coder', contextWindow: 4096 },
    });
    const vllm = await FakeModelServer.start({
      engine: { kind: 'vllm', model: 'Qwen/Qwen3-Coder-30B', contextWindow: 4096 },
    });
    const closed = await FakeModelServer.start();
    const closedUrl = closed.openAiBaseUrl;
    await closed.close();
    try {
      const found = await discoverLocalServers([
        { provider: 'ollama', baseUrl: ollama.openAiBaseUrl },
        { provider: 'llamacpp', baseUrl: closedUrl },
        { provider: 'vllm', baseUrl: vllm.openAiBaseUrl },
      ]);
      assert.deepEqual(found, [
        { provider: 'ollama', label: 'Ollama', baseUrl: ollama.openAiBaseUrl, models: ['qwen3-coder'] },
        { provider: 'vllm', label: 'vLLM', baseUrl: vllm.openAiBaseUrl, models: ['Qwen/Qwen3-Coder-30B'] },
      ]);
    } finally {
      await ollama.close();
      await vllm.close();
    }
  });

  it('shows no name a server could use to attack a terminal or the chat, and no endless list', async () => {
    const names = [
      '\u001b]0;pwned\u0007',
      'ok-model',
      'x'.repeat(500),
      ...Array.from({ length: 100 }, (_, i) => `m${i}`),
    ];
    const server = await serveFixedBody(JSON.stringify({ data: names.map((id) => ({ id })) }));
    try {
      const [found] = await discoverLocalServers([{ provider: 'vllm', baseUrl: server.url }]);
      assert.equal(found?.models[0], 'ok-model');
      assert.equal(found?.models.length, 20);
      assert.ok(found?.models.every((name) => /^[\x20-\x7e]+$/.test(name)));
    } finally {
      await server.close();
    }
  });

  it('the chat offers what it found beside Set API Key, and uses only a server it offered', async () => {
    const server: LocalServer = {
      provider: 'ollama',
      label: 'Ollama',
      baseUrl: 'http://127.0.0.1:11434/v1',
      models: ['qwen3-coder', 'llama3.2'],
    };
    const used: Array<{ server: LocalServer; model: string }> = [];
    const posts: HostToWebview[] = [];
    const { webview, session } = fakeChatHost((message) => posts.push(message), {
      findLocalServers: async () => [server],
      useLocalServer: async (chosen, model) => void used.push({ server: chosen, model }),
    });
    session.problem = { reason: 'missing_api_key', message: 'OpenAgent needs a model to talk to.' };
    webview.send({ type: 'webview_ready' });
    webview.send({ type: 'prompt_submit', requestId: 'r1', text: 'hello' });
    await sleep(50);
    const notices = posts.filter((post) => post.type === 'chat_notice');
    const offer = notices.at(-1);
    assert.ok(offer?.type === 'chat_notice');
    assert.match(offer.text, /Found on this machine: Ollama \(qwen3-coder, llama3\.2\)/);
    assert.deepEqual(
      offer.actions.map((action) => action.label),
      ['Use Ollama', 'Set API Key', 'Choose a Provider', 'Get Started'],
    );

    // A choice that was never offered does nothing.
    webview.send({ type: 'action_invoke', action: 'use_local_server', choice: 7 });
    webview.send({ type: 'action_invoke', action: 'use_local_server', choice: -1 });
    await sleep(20);
    assert.deepEqual(used, []);

    webview.send({ type: 'action_invoke', action: 'use_local_server', choice: 0 });
    await sleep(20);
    assert.deepEqual(used, [{ server, model: 'qwen3-coder' }]);
    assert.equal(session.retries, 1, 'the prompt is sent again on the chosen server');
  });
});

describe('model names on buttons', () => {
  it('are file names for paths, cut to a button', () => {
    assert.equal(
      shortModelName('/models/qwen2.5-coder-7b-instruct-q4_k_m.gguf'),
      'qwen2.5-coder-7b-instruct-q4_k_m.gguf',
    );
    assert.equal(shortModelName('C:\\models\\tiny.gguf'), 'tiny.gguf');
    assert.equal(shortModelName('qwen3-coder'), 'qwen3-coder');
    assert.equal(shortModelName('x'.repeat(60)).length, 40);
  });
});
