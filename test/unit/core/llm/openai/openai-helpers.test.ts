import assert from 'node:assert/strict';
import type { ModelMessage } from '../../../../../src/core/llm/llm-client';
import { convertToOpenAiMessages } from '../../../../../src/core/llm/openai/convert-to-openai-messages';
import { mapOpenAiFinishReason } from '../../../../../src/core/llm/openai/map-openai-finish-reason';
import { prepareOpenAiTools } from '../../../../../src/core/llm/openai/prepare-openai-tools';

describe('OpenAI helpers', () => {
  it('converts messages: system first, tool results as tool messages, thinking dropped', () => {
    const history: ModelMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', text: 'private', signature: 's' },
          { type: 'text', text: 'Reading.' },
          { type: 'tool_call', id: 'c1', name: 'read_file', input: { path: 'a' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', toolCallId: 'c1', toolName: 'read_file', output: 'A', isError: false },
          { type: 'text', text: 'and then?' },
        ],
      },
    ];
    assert.deepEqual(convertToOpenAiMessages('sys', history), [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: 'Reading.',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'A' },
      { role: 'user', content: 'and then?' },
    ]);
  });

  it('prepares function tools', () => {
    assert.deepEqual(prepareOpenAiTools([{ name: 'a', description: 'A', inputSchema: { type: 'object' } }]), [
      { type: 'function', function: { name: 'a', description: 'A', parameters: { type: 'object' } } },
    ]);
  });

  it('maps finish reasons', () => {
    assert.equal(mapOpenAiFinishReason('stop'), 'end_turn');
    assert.equal(mapOpenAiFinishReason('tool_calls'), 'tool_use');
    assert.equal(mapOpenAiFinishReason('length'), 'max_tokens');
    assert.equal(mapOpenAiFinishReason('content_filter'), 'refusal');
    assert.equal(mapOpenAiFinishReason(undefined), 'other');
  });
});
