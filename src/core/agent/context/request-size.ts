/**
 * How big a request is, in characters per kind of content, remembered per message and per tool
 * array: it runs before every model call (compaction checks, budgets, the context meter), on
 * histories of thousands of messages, so only new or changed messages are measured again.
 */
import type { ModelMessage, ToolDefinition } from '../../llm/llm-client';
import { imageTokens, tokensForChars } from '../../llm/token-estimate';

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
    else if (part.type === 'tool_result')
      chars.toolResults += part.output.length + part.toolName.length + imagesChars(part.images ?? []);
    else if (part.type === 'image') chars.conversation += imagesChars([part]);
    else chars.conversation += JSON.stringify(part.input ?? {}).length + part.name.length;
  }
  messageSizes.set(message, { content: message.content, length: message.content.length, chars });
  return chars;
}

/** Images are counted by their pixels, not their base64 (four characters a token, as elsewhere here). */
function imagesChars(images: ReadonlyArray<{ width: number; height: number }>): number {
  let chars = 0;
  for (const image of images) chars += imageTokens(image.width, image.height) * 4;
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

/** What a history array held when last measured, message by message, and its sums. */
interface HistorySizes {
  messages: ModelMessage[];
  contents: Array<ModelMessage['content']>;
  lengths: number[];
  sizes: MessageChars[];
  conversation: number;
  toolResults: number;
}

/** Per history array (the loop keeps one per conversation and adds to it). */
const historySizes = new WeakMap<readonly ModelMessage[], HistorySizes>();

/**
 * A history's characters by kind. The loop's history array grows by a few messages per call,
 * so what it held last time is checked (a pointer comparison per message) rather than looked
 * up, and only what is new or changed (a compaction, a dropped call) is measured.
 */
export function historyChars(messages: readonly ModelMessage[]): MessageChars {
  let known = historySizes.get(messages);
  if (!known) {
    known = { messages: [], contents: [], lengths: [], sizes: [], conversation: 0, toolResults: 0 };
    historySizes.set(messages, known);
  }
  const limit = Math.min(known.messages.length, messages.length);
  let same = 0;
  while (same < limit) {
    const message = messages[same]!;
    if (
      message !== known.messages[same] ||
      message.content !== known.contents[same] ||
      message.content.length !== known.lengths[same]
    )
      break;
    same++;
  }
  for (let index = known.messages.length - 1; index >= same; index--) {
    known.conversation -= known.sizes[index]!.conversation;
    known.toolResults -= known.sizes[index]!.toolResults;
  }
  for (const list of [known.messages, known.contents, known.lengths, known.sizes]) list.length = same;
  for (let index = same; index < messages.length; index++) {
    const message = messages[index]!;
    const size = messageChars(message);
    known.messages.push(message);
    known.contents.push(message.content);
    known.lengths.push(message.content.length);
    known.sizes.push(size);
    known.conversation += size.conversation;
    known.toolResults += size.toolResults;
  }
  return { conversation: known.conversation, toolResults: known.toolResults };
}

/** The history's size in tokens, estimated (the system prompt included). */
export function estimateHistoryTokens(system: string, messages: readonly ModelMessage[]): number {
  const chars = historyChars(messages);
  return tokensForChars(system.length + chars.conversation + chars.toolResults);
}
