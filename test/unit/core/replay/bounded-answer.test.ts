/** A recording keeps at most a bounded part of a model's answer, and says when it cut one. */
import assert from 'node:assert/strict';
import { boundedAnswer } from '../../../../src/core/replay/bounded-answer';
import type { LlmStreamPart } from '../../../../src/core/llm/llm-client';

describe('a recorded answer is bounded', () => {
  it('keeps an ordinary answer whole, with no note', () => {
    const parts: LlmStreamPart[] = [
      { type: 'text_delta', text: 'Let me look.' },
      { type: 'tool_call', id: 'r1', name: 'read_file', input: { path: 'a.txt' } },
      { type: 'finish', stopReason: 'tool_use' },
    ];
    assert.deepEqual(boundedAnswer(parts), { parts });
  });

  it('cuts texts and leaves out tool arguments past the budget, saying how much was streamed', () => {
    const parts: LlmStreamPart[] = [
      { type: 'text_delta', text: 'x'.repeat(60) },
      { type: 'tool_call_delta', id: 'w1', argumentsDelta: 'y'.repeat(80) },
      { type: 'tool_call', id: 'w1', name: 'write_file', input: { content: 'z'.repeat(200) } },
      { type: 'tool_call_invalid', id: 'w2', name: 'write_file', rawArguments: '{"a":', error: 'bad' },
      { type: 'finish', stopReason: 'tool_use' },
    ];
    const { parts: kept, note } = boundedAnswer(parts, 100);
    assert.deepEqual(kept[0], { type: 'text_delta', text: 'x'.repeat(60) });
    assert.deepEqual(kept[1], { type: 'tool_call_delta', id: 'w1', argumentsDelta: 'y'.repeat(40) });
    assert.deepEqual((kept[2] as { input: unknown }).input, { unrecorded: 'an input of 214 characters' });
    assert.deepEqual(kept[3], { ...parts[3], rawArguments: '' });
    assert.deepEqual(kept[4], parts[4]);
    assert.match(note ?? '', /streamed 359 characters; a recording keeps 100/);
  });

  it('counts an input too deep to write as over the budget, without throwing', () => {
    let deep: unknown = 'leaf';
    for (let level = 0; level < 100_000; level++) deep = { deep };
    const { parts, note } = boundedAnswer([{ type: 'tool_call', id: 'd', name: 'write_file', input: deep }], 1_000);
    assert.deepEqual((parts[0] as { input: unknown }).input, { unrecorded: 'an input too deep to write' });
    assert.ok(note);
  });
});
