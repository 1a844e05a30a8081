import assert from 'node:assert/strict';
import { convertToAnthropicMessages } from '../../../../../src/core/llm/anthropic/convert-to-anthropic-messages';
import { mapAnthropicStopReason } from '../../../../../src/core/llm/anthropic/map-anthropic-stop-reason';
import { prepareAnthropicTools } from '../../../../../src/core/llm/anthropic/prepare-anthropic-tools';
import type { ModelMessage } from '../../../../../src/core/llm/llm-client';

describe('Anthropic helpers', () => {
  const history: ModelMessage[] = [
    { role: 'user', content: [{ type: 'text', text: 'first' }] },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', text: 'hmm', signature: 'sig-1' },
        { type: 'text', text: '' },
        { type: 'tool_call', id: 't1', name: 'read_file', input: { path: 'a' } },
      ],
    },
    {
      role: 'user',
      content: [{ type: 'tool_result', toolCallId: 't1', toolName: 'read_file', output: 'A', isError: false }],
    },
    { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
    { role: 'user', content: [{ type: 'text', text: 'again' }] },
  ];

  it('converts messages, keeping thinking with its signature and dropping empty text', () => {
    const wire = convertToAnthropicMessages(history);
    assert.deepEqual(wire[1], {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'hmm', signature: 'sig-1' },
        { type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a' } },
      ],
    });
    assert.deepEqual(wire[2]?.content, [
      { type: 'tool_result', tool_use_id: 't1', content: 'A', is_error: false, cache_control: { type: 'ephemeral' } },
    ]);
  });

  it('puts cache breakpoints on the last two user messages only', () => {
    const wire = convertToAnthropicMessages(history);
    const marked = wire.map(
      (message) =>
        Array.isArray(message.content) &&
        message.content.some((block) => 'cache_control' in block && block.cache_control),
    );
    assert.deepEqual(marked, [false, false, true, false, true]);
  });

  it('passes redacted thinking back as it came', () => {
    const wire = convertToAnthropicMessages([
      {
        role: 'assistant',
        content: [
          { type: 'thinking', text: '', signature: '', redactedData: 'opaque' },
          { type: 'text', text: 'x' },
        ],
      },
    ]);
    assert.deepEqual(wire[0]?.content, [
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'text', text: 'x' },
    ]);
  });

  it('marks the last tool for caching', () => {
    const tools = prepareAnthropicTools([
      { name: 'a', description: 'A', inputSchema: { type: 'object' } },
      { name: 'b', description: 'B', inputSchema: { type: 'object' } },
    ]);
    assert.equal(tools[0]?.cache_control, undefined);
    assert.deepEqual(tools[1]?.cache_control, { type: 'ephemeral' });
    assert.deepEqual(tools[1]?.input_schema, { type: 'object' });
  });

  it('maps stop reasons', () => {
    assert.equal(mapAnthropicStopReason('end_turn'), 'end_turn');
    assert.equal(mapAnthropicStopReason('stop_sequence'), 'end_turn');
    assert.equal(mapAnthropicStopReason('tool_use'), 'tool_use');
    assert.equal(mapAnthropicStopReason('max_tokens'), 'max_tokens');
    assert.equal(mapAnthropicStopReason('refusal'), 'refusal');
    assert.equal(mapAnthropicStopReason(null), 'other');
  });
});
