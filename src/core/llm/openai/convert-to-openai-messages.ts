import type OpenAI from 'openai';
import type { ImagePart, ModelMessage } from '../llm-client';

type WireMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/**
 * Model messages → Chat Completions wire messages. Tool results become separate `tool`
 * messages, which the API requires to follow the assistant message that made the calls.
 */
export function convertToOpenAiMessages(system: string, messages: ModelMessage[]): WireMessage[] {
  const wire: WireMessage[] = [];
  if (system) wire.push({ role: 'system', content: system });
  for (const message of messages) wire.push(...convertCached(message));
  return wire;
}

/**
 * The whole history goes out on every call; a message's conversion is reused while it keeps
 * the same content array and length (history edits replace arrays, never change parts).
 */
const conversions = new WeakMap<ModelMessage, { content: readonly object[]; length: number; wire: WireMessage[] }>();

function convertCached(message: ModelMessage): WireMessage[] {
  const cached = conversions.get(message);
  if (cached && cached.content === message.content && cached.length === message.content.length) return cached.wire;
  const wire = convertMessage(message);
  conversions.set(message, { content: message.content, length: message.content.length, wire });
  return wire;
}

function convertMessage(message: ModelMessage): WireMessage[] {
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
    return [{ role: 'assistant', content: text || null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) }];
  }
  const wire: WireMessage[] = [];
  // Chat Completions' tool messages carry text only: a tool's images follow in the user message,
  // each introduced by the call it came from.
  const images: UserPart[] = [];
  for (const part of message.content) {
    if (part.type !== 'tool_result') continue;
    wire.push({ role: 'tool', tool_call_id: part.toolCallId, content: part.output });
    if (part.images?.length) {
      images.push({
        type: 'text',
        text: `The image${part.images.length > 1 ? 's' : ''} ${part.toolName} returned (call ${part.toolCallId}):`,
      });
      images.push(...part.images.map(imageUrlPart));
    }
  }
  for (const part of message.content) if (part.type === 'image') images.push(imageUrlPart(part));
  const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  if (images.length === 0) {
    if (text) wire.push({ role: 'user', content: text });
  } else {
    wire.push({ role: 'user', content: [...(text ? [{ type: 'text' as const, text }] : []), ...images] });
  }
  return wire;
}

type UserPart = OpenAI.Chat.Completions.ChatCompletionContentPart;

/** A data: URL: what OpenAI and the local servers (llama.cpp, Ollama, LM Studio, vLLM) all accept. */
function imageUrlPart(image: ImagePart): UserPart {
  return { type: 'image_url', image_url: { url: `data:${image.mediaType};base64,${image.data}` } };
}
