/**
 * The starting context — system prompt plus every built-in tool's schema, as the editor's first
 * request carries them — stays within 4,000 tokens, by the product's own estimate and by a real
 * tokenizer (Qwen2's, in llama.cpp's own server, chat template included), so a small local model
 * keeps most of its window for the work. `npm run bench` prints both.
 */
import assert from 'node:assert/strict';
import {
  countWithTokenizer,
  measureParts,
  openingRequest,
  STARTING_CONTEXT_LIMIT,
  type ContextPart,
} from '../../../bench/starting-context';

function biggest(parts: readonly ContextPart[], count: number): string {
  return [...parts]
    .sort((a, b) => b.tokens - a.tokens)
    .slice(0, count)
    .map((part) => `${part.name} ${part.tokens}`)
    .join(', ');
}

describe('the starting context', function () {
  this.timeout(60_000);

  it(`stays within ${STARTING_CONTEXT_LIMIT.toLocaleString('en-US')} tokens by the product's estimate`, async () => {
    const wire = await openingRequest(false);
    const { tokens, parts } = measureParts(wire);
    const names = parts.map((part) => part.name);
    // The measure covers the whole composition: the host's tools, the session's and the loop's.
    for (const tool of ['read_file', 'edit_file', 'bash', 'search_files', 'go_to_definition', 'task', 'think'])
      assert.ok(names.includes(tool), `${tool} is among the measured tools: ${names.join(', ')}`);
    assert.ok(parts[0]!.tokens > 100, 'the system prompt is measured');
    assert.ok(
      tokens <= STARTING_CONTEXT_LIMIT,
      `The starting context is ${tokens} tokens (limit ${STARTING_CONTEXT_LIMIT}). Biggest: ${biggest(parts, 8)}.`,
    );
  });

  it(`stays within ${STARTING_CONTEXT_LIMIT.toLocaleString('en-US')} tokens by a real tokenizer`, async () => {
    const wire = await openingRequest(false);
    const [count] = await countWithTokenizer([wire]);
    assert.ok(count!.system > 100, `the system prompt is counted: ${JSON.stringify(count)}`);
    assert.ok(
      count!.total <= STARTING_CONTEXT_LIMIT,
      `The starting context is ${count!.total} tokens by Qwen2's tokenizer (limit ${STARTING_CONTEXT_LIMIT}). ` +
        `Biggest by estimate: ${biggest(measureParts(wire).parts, 8)}.`,
    );
  });
});
