import type Anthropic from '@anthropic-ai/sdk';
import type { ImagePart, ModelMessage } from '../llm-client';

/** How many of the most recent user messages get a prompt-cache breakpoint. */
const CACHED_RECENT_TURNS = 2;

/**
 * Model messages → Anthropic Messages API wire messages. The last block of the most recent
 * user messages carries cache_control, so each request reuses the cached prefix of the one
 * before (with the system prompt and the tools, four breakpoints: Anthropic's maximum).
 */
export function convertToAnthropicMessages(messages: ModelMessage[]): Anthropic.MessageParam[] {
  const wire = messages.map(convertCached);
  markRecentUserTurnsForCaching(wire);
  return wire;
}

/**
 * The loop sends the whole history on every call; converting it afresh each time is quadratic
 * work over a long session. A message's conversion is reused while it keeps the same content
 * array and length (history edits replace content arrays or append, never change parts in place).
 */
const conversions = new WeakMap<
  ModelMessage,
  { content: readonly object[]; length: number; wire: Anthropic.MessageParam }
>();

function convertCached(message: ModelMessage): Anthropic.MessageParam {
  const cached = conversions.get(message);
  if (cached && cached.content === message.content && cached.length === message.content.length) {
    return cached.wire;
  }
  const wire = convertMessage(message);
  conversions.set(message, { content: message.content, length: message.content.length, wire });
  return wire;
}

function convertMessage(message: ModelMessage): Anthropic.MessageParam {
  if (message.role === 'assistant') {
    return {
      role: 'assistant',
      content: message.content.flatMap((part): Anthropic.ContentBlockParam[] => {
        if (part.type === 'text') return part.text ? [{ type: 'text', text: part.text }] : [];
        if (part.type === 'thinking') {
          return part.redactedData !== undefined
            ? [{ type: 'redacted_thinking', data: part.redactedData }]
            : [{ type: 'thinking', thinking: part.text, signature: part.signature }];
        }
        return [{ type: 'tool_use', id: part.id, name: part.name, input: part.input ?? {} }];
      }),
    };
  }
  return {
    role: 'user',
    content: message.content.map((part): Anthropic.ContentBlockParam => {
      if (part.type === 'text') return { type: 'text', text: part.text };
      if (part.type === 'image') return imageBlock(part);
      return {
        type: 'tool_result',
        tool_use_id: part.toolCallId,
        // A tool result may carry images (read_file of a picture): text first, then the images.
        content: part.images?.length
          ? [{ type: 'text', text: part.output }, ...part.images.map(imageBlock)]
          : part.output,
        is_error: part.isError,
      };
    }),
  };
}

function imageBlock(image: ImagePart): Anthropic.ImageBlockParam {
  return { type: 'image', source: { type: 'base64', media_type: image.mediaType, data: image.data } };
}

/** Marks the last block of the most recent user messages, on copies: cached conversions stay clean. */
function markRecentUserTurnsForCaching(wire: Anthropic.MessageParam[]): void {
  let marked = 0;
  for (let index = wire.length - 1; index >= 0 && marked < CACHED_RECENT_TURNS; index--) {
    const message = wire[index]!;
    if (message.role !== 'user' || !Array.isArray(message.content)) continue;
    const last = message.content.at(-1);
    if (last && (last.type === 'text' || last.type === 'tool_result' || last.type === 'image')) {
      wire[index] = {
        ...message,
        content: [...message.content.slice(0, -1), { ...last, cache_control: { type: 'ephemeral' } }],
      };
      marked++;
    }
  }
}
