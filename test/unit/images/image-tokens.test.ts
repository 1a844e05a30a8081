/**
 * Images in the context meter and the cost estimate (issue 36): a request with an image is
 * estimated higher by the image's token cost (width × height / 750) — not by its base64, which
 * would count ten times more — under the message it belongs to (the prompt's under the
 * conversation, a read_file picture under tool results).
 */
import assert from 'node:assert/strict';
import type { LlmRequest, ModelMessage } from '../../../src/core/llm/llm-client';
import { estimateInputTokens } from '../../../src/core/agent/metered-llm';
import { measureRequest } from '../../../src/core/agent/context/context-breakdown';
import { estimateUsage } from '../../../src/core/llm/token-estimate';
import { imageTokens } from '../../../src/core/images/image-limits';
import { costOf, priceOf } from '../../../src/core/llm/model-info';
import { preparedImage } from './image-fixtures';

function request(messages: ModelMessage[]): LlmRequest {
  return { model: 'claude-sonnet-4-6', system: 'You help.', messages, tools: [], maxOutputTokens: 1024 };
}

describe('images in the token estimate and the context meter', () => {
  it("a prompt's image adds exactly its token cost, to the conversation part", async () => {
    const image = await preparedImage(21, 1092, 1092);
    const cost = imageTokens(image.width, image.height);
    assert.equal(cost, 1590);
    const text: ModelMessage = { role: 'user', content: [{ type: 'text', text: 'What is wrong here?' }] };
    const withImage: ModelMessage = { role: 'user', content: [{ type: 'text', text: 'What is wrong here?' }, image] };
    const plain = request([text]);
    const pictured = request([withImage]);
    assert.equal(estimateInputTokens(pictured) - estimateInputTokens(plain), cost);
    assert.equal(measureRequest(pictured, []).conversation - measureRequest(plain, []).conversation, cost);
    // Without usage from the server: the same, give or take the JSON punctuation around the part.
    const usageDifference = estimateUsage(pictured, 0).inputTokens - estimateUsage(plain, 0).inputTokens;
    assert.ok(usageDifference >= cost && usageDifference <= cost + 2, `${usageDifference} for ${cost}`);
    // The cost estimate follows: the image's tokens at the model's input price.
    const price = priceOf('anthropic', 'claude-sonnet-4-6');
    const usd = (tokens: number) =>
      costOf(price, { inputTokens: tokens, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
    assert.ok(usd(estimateInputTokens(pictured)) > usd(estimateInputTokens(plain)));
  });

  it("a tool result's image counts under tool results", async () => {
    const image = await preparedImage(22, 800, 600);
    const result = (images?: (typeof image)[]): ModelMessage[] => [
      { role: 'user', content: [{ type: 'text', text: 'look' }] },
      { role: 'assistant', content: [{ type: 'tool_call', id: 'r', name: 'read_file', input: { path: 'a.png' } }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', toolCallId: 'r', toolName: 'read_file', output: 'a.png', isError: false, images },
        ],
      },
    ];
    const plain = request(result());
    const pictured = request(result([image]));
    const cost = imageTokens(800, 600);
    assert.equal(estimateInputTokens(pictured) - estimateInputTokens(plain), cost);
    assert.equal(measureRequest(pictured, []).toolResults - measureRequest(plain, []).toolResults, cost);
  });
});
