import type Anthropic from '@anthropic-ai/sdk';
import type { ModelMessage } from '../llm-client';

/** Model messages → Anthropic Messages API wire messages. */
export function convertToAnthropicMessages(messages: ModelMessage[]): Anthropic.MessageParam[] {
  return messages.map((message): Anthropic.MessageParam => {
    if (message.role === 'assistant') {
      return {
        role: 'assistant',
        content: message.content.map((part): Anthropic.ContentBlockParam =>
          part.type === 'text'
            ? { type: 'text', text: part.text }
            : { type: 'tool_use', id: part.id, name: part.name, input: part.input },
        ),
      };
    }
    return {
      role: 'user',
      content: message.content.map((part): Anthropic.ContentBlockParam =>
        part.type === 'text'
          ? { type: 'text', text: part.text }
          : { type: 'tool_result', tool_use_id: part.toolCallId, content: part.output, is_error: part.isError },
      ),
    };
  });
}
