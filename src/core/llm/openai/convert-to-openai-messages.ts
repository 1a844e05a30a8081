import type OpenAI from 'openai';
import type { ModelMessage } from '../llm-client';

type WireMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/**
 * Model messages → Chat Completions wire messages. Tool results become separate `tool`
 * messages, which the API requires to follow the assistant message that made the calls.
 */
export function convertToOpenAiMessages(system: string, messages: ModelMessage[]): WireMessage[] {
  const wire: WireMessage[] = [];
  if (system) wire.push({ role: 'system', content: system });
  for (const message of messages) {
    if (message.role === 'assistant') {
      const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
      const toolCalls = message.content.flatMap((part) =>
        part.type === 'tool_call'
          ? [
              {
                id: part.id,
                type: 'function' as const,
                function: { name: part.name, arguments: JSON.stringify(part.input ?? {}) },
              },
            ]
          : [],
      );
      wire.push({
        role: 'assistant',
        content: text || null,
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      });
      continue;
    }
    const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
    for (const part of message.content) {
      if (part.type === 'tool_result') wire.push({ role: 'tool', tool_call_id: part.toolCallId, content: part.output });
    }
    if (text) wire.push({ role: 'user', content: text });
  }
  return wire;
}
