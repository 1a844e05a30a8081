/**
 * How big a request is, in characters per kind of content, remembered per message and per tool
 * array: it runs before every model call (compaction checks, budgets, the context meter), on
 * histories of thousands of messages, so only new or changed messages are measured again.
 */
import type { ModelMessage, ToolDefinition } from '../../llm/llm-client';
import { tokensForChars } from '../../llm/token-estimate';

/** A message's characters: what was said (text, thinking, tool calls) and what tools returned. */
export interface MessageChars {
  conversation: number;
  toolResults: number;
}

/** Sizes per message, reused while the message keeps the same content array and length. */
const messageSizes = new WeakMap<ModelMessage, { content: readonly object[]; length: number; chars: MessageChars }>();
/** Tool definitions' JSON length, once per array (the loop passes the same array while the offer is unchanged). */
const toolSizes = new WeakMap<readonly ToolDefinition[], number>();

/** A message's characters by kind (history edits replace content arrays rather than change them). */
export function messageChars(message: ModelMessage): MessageChars {
  const cached = messageSizes.get(message);
  if (cached && cached.content === message.content && cached.length === message.content.length) return cached.chars;
  const chars: MessageChars = { conversation: 0, toolResults: 0 };
  for (const part of message.content) {
    if (part.type === 'text' || part.type === 'thinking') chars.conversation += part.text.length;
    else if (part.type === 'tool_result') chars.toolResults += part.output.length + part.toolName.length;
    else chars.conversation += JSON.stringify(part.input ?? {}).length + part.name.length;
  }
  messageSizes.set(message, { content: message.content, length: message.content.length, chars });
  return chars;
}

/** The tool definitions' size as sent (their JSON). */
export function toolDefinitionChars(tools: readonly ToolDefinition[]): number {
  let chars = toolSizes.get(tools);
  if (chars === undefined) {
    chars = JSON.stringify(tools).length;
    toolSizes.set(tools, chars);
  }
  return chars;
}

/** The history's size in tokens, estimated (the system prompt included). */
export function estimateHistoryTokens(system: string, messages: readonly ModelMessage[]): number {
  let chars = system.length;
  for (const message of messages) {
    const size = messageChars(message);
    chars += size.conversation + size.toolResults;
  }
  return tokensForChars(chars);
}
