import assert from 'node:assert/strict';
import { AnthropicClient } from '../../../../src/core/llm/anthropic/anthropic-client';
import { createLlmClient } from '../../../../src/core/llm/create-llm-client';
import { OpenAiClient } from '../../../../src/core/llm/openai/openai-client';
import { PROVIDER_PRESETS } from '../../../../src/core/llm/provider-presets';

describe('createLlmClient', () => {
  it('explains what to do when a hosted provider has no key', () => {
    const setup = createLlmClient({ provider: 'anthropic', model: '', baseUrl: '' }, undefined);
    assert.equal(setup.ok, false);
    assert.equal(!setup.ok && setup.reason, 'missing_api_key');
    assert.match(!setup.ok ? setup.message : '', /Set API Key.*ANTHROPIC_API_KEY.*Ollama or LM Studio/s);
  });

  it('uses the Anthropic adapter and the default model when a key is there', () => {
    const setup = createLlmClient({ provider: 'anthropic', model: ' ', baseUrl: '' }, 'sk-ant');
    assert.ok(setup.ok);
    assert.ok(setup.client instanceof AnthropicClient);
    assert.equal(setup.model, 'claude-sonnet-4-6');
  });

  it("needs no key for local servers and uses the preset's address", () => {
    for (const [provider, url] of [
      ['ollama', 'http://localhost:11434/v1'],
      ['lmstudio', 'http://localhost:1234/v1'],
      ['llamacpp', 'http://localhost:8080/v1'],
      ['vllm', 'http://localhost:8000/v1'],
    ] as const) {
      const setup = createLlmClient({ provider, model: 'qwen', baseUrl: '' }, undefined);
      assert.ok(setup.ok, provider);
      assert.ok(setup.client instanceof OpenAiClient);
      assert.equal(setup.baseUrl, url);
      assert.equal(setup.client.provider, provider);
    }
  });

  it('requires a base URL for a custom OpenAI-compatible server', () => {
    const setup = createLlmClient({ provider: 'openai-compatible', model: '', baseUrl: '' }, undefined);
    assert.equal(!setup.ok && setup.reason, 'missing_base_url');
  });

  it('names the known providers when the setting holds an unknown one', () => {
    const setup = createLlmClient({ provider: 'gemini', model: '', baseUrl: '' }, 'k');
    assert.equal(!setup.ok && setup.reason, 'unknown_provider');
    assert.match(!setup.ok ? setup.message : '', /anthropic, openai, ollama/);
  });

  it('does not take inherited object keys for providers', () => {
    const setup = createLlmClient({ provider: '__proto__', model: '', baseUrl: '' }, 'k');
    assert.equal(!setup.ok && setup.reason, 'unknown_provider');
  });
});

describe('the provider list', () => {
  it('is the same in the presets and in the openagent.provider setting (adding a provider: both, and nothing else)', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const manifest = require('../../../../package.json') as {
      contributes: { configuration: { properties: Record<string, { enum?: string[]; enumDescriptions?: string[] }> } };
    };
    const setting = manifest.contributes.configuration.properties['openagent.provider']!;
    assert.deepEqual(setting.enum, Object.keys(PROVIDER_PRESETS));
    assert.equal(setting.enumDescriptions?.length, setting.enum?.length);
  });
});
