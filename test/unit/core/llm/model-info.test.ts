import assert from 'node:assert/strict';
import { contextWindowOf, costOf, DEFAULT_CONTEXT_WINDOW, priceOf } from '../../../../src/core/llm/model-info';

describe('model info and pricing', () => {
  it('prices Anthropic usage including cache writes and reads', () => {
    const price = priceOf('anthropic', 'claude-sonnet-4-5-20250929');
    const cost = costOf(price, {
      inputTokens: 1_000_000,
      outputTokens: 100_000,
      cacheWriteTokens: 200_000,
      cacheReadTokens: 1_000_000,
    });
    // 3 + 1.5 + 0.75 + 0.3
    assert.ok(Math.abs(cost - 5.55) < 1e-9, String(cost));
  });

  it('prices OpenAI models by the longest matching name', () => {
    assert.equal(priceOf('openai', 'gpt-4.1-mini')?.input, 0.4);
    assert.equal(priceOf('openai', 'gpt-4.1')?.input, 2);
    assert.equal(priceOf('openai', 'gpt-4o-2024-08-06')?.output, 10);
  });

  it('charges nothing for local models and knows nothing of unknown hosted ones', () => {
    assert.equal(
      costOf(priceOf('ollama', 'qwen3-coder'), {
        inputTokens: 1e6,
        outputTokens: 1e6,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      }),
      0,
    );
    assert.equal(priceOf('openai-compatible', 'mystery-model'), undefined);
  });

  it('knows context windows and falls back to a conservative one', () => {
    assert.equal(contextWindowOf('claude-haiku-4-5'), 200_000);
    assert.equal(contextWindowOf('gpt-4.1'), 1_047_576);
    assert.equal(contextWindowOf('qwen3-coder'), DEFAULT_CONTEXT_WINDOW);
    assert.equal(contextWindowOf('qwen3-coder', 131_072), 131_072);
  });
});
