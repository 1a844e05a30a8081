/**
 * Which models see images, and what a model that does not is told instead (issue 36).
 *
 * Known hosted models are listed by family. A model on an OpenAI-compatible server (llama.cpp,
 * Ollama, LM Studio, vLLM) says nothing about vision in its name reliably, so it is assumed NOT
 * to see images — sending one to a text-only model fails the whole request on most servers —
 * unless its name names a well-known vision family, or the user says so with the
 * `openagent.modelAcceptsImages` setting ("yes" / "no" override the guess).
 */
import type { ImagePart, ModelMessage } from '../llm/llm-client';

/** Hosted families that take images (matched at the start of the name, after a vendor prefix). */
const VISION_PREFIXES = ['claude-', 'gpt-4o', 'gpt-4.1', 'gpt-5', 'o3', 'o4-', 'gpt-4-turbo'];
/** o3-mini is text only, though o3 is not. */
const TEXT_ONLY_PREFIXES = ['o3-mini', 'o1-mini', 'gpt-3.5', 'claude-2', 'claude-instant'];
/** Open vision families as local servers name them. */
const LOCAL_VISION_PATTERN =
  /(llava|bakllava|vision|[-_.]vl\b|[-_.]vl[-_:]|qwen2\.5vl|gemma-?3|pixtral|minicpm-v|moondream|llama-?4|mistral-small-3\.[12]|internvl|smolvlm|granite.*vision)/i;

/** Whether `model` accepts images; `override` (the setting) wins when set. */
export function modelAcceptsImages(model: string, override?: boolean): boolean {
  if (override !== undefined) return override;
  const name = model.toLowerCase().replace(/^(anthropic|openai)\//, '');
  if (TEXT_ONLY_PREFIXES.some((prefix) => name.startsWith(prefix))) return false;
  if (VISION_PREFIXES.some((prefix) => name.startsWith(prefix))) return true;
  return LOCAL_VISION_PATTERN.test(name);
}

/** What the model reads in place of an image it cannot see: what it was and why it is missing. */
export function imageWithheldNote(image: Pick<ImagePart, 'name' | 'width' | 'height'>, model: string): string {
  const what = image.name ? `the image ${image.name}` : 'an image';
  return (
    `[The user attached ${what} (${image.width}×${image.height}), but ${model} does not accept images, ` +
    `so it was not sent. Say so if the image matters; the user can switch to a model that sees images ` +
    `or set openagent.modelAcceptsImages to "yes" if this model does.]`
  );
}

/**
 * The history as a model that sees no images must get it: every image replaced by its note (a
 * tool's images too). Messages without images are passed through as they are (the wire
 * conversion caches per message).
 */
export function withoutImages(messages: readonly ModelMessage[], model: string): ModelMessage[] {
  return messages.map((message) => {
    if (message.role !== 'user' || !message.content.some(holdsImage)) return message;
    return {
      role: 'user',
      content: message.content.map((part) => {
        if (part.type === 'image') return { type: 'text', text: imageWithheldNote(part, model) };
        if (part.type === 'tool_result' && part.images?.length) {
          const notes = part.images.map((image) => imageWithheldNote(image, model)).join('\n');
          const { images: _dropped, ...rest } = part;
          return { ...rest, output: `${part.output}\n${notes}` };
        }
        return part;
      }),
    };
  });
}

/**
 * Keeps a request within the per-request image cap: the newest images stay, older ones become
 * notes ("an earlier image, no longer sent"), so a long session of screenshots keeps working.
 */
export function capImages(messages: readonly ModelMessage[], maxImages: number): ModelMessage[] {
  let total = 0;
  for (const message of messages) if (message.role === 'user') total += countImages(message);
  if (total <= maxImages) return [...messages];
  let toDrop = total - maxImages;
  return messages.map((message) => {
    if (toDrop === 0 || message.role !== 'user' || !message.content.some(holdsImage)) return message;
    const content = message.content.map((part) => {
      if (toDrop > 0 && part.type === 'image') {
        toDrop--;
        return { type: 'text' as const, text: olderImageNote(part) };
      }
      if (toDrop > 0 && part.type === 'tool_result' && part.images?.length) {
        const dropped = part.images.slice(0, toDrop);
        toDrop -= dropped.length;
        const kept = part.images.slice(dropped.length);
        return { ...part, images: kept, output: `${part.output}\n${dropped.map(olderImageNote).join('\n')}` };
      }
      return part;
    });
    return { role: 'user' as const, content };
  });
}

export function countImages(message: ModelMessage): number {
  if (message.role !== 'user') return 0;
  let count = 0;
  for (const part of message.content) {
    if (part.type === 'image') count++;
    else if (part.type === 'tool_result') count += part.images?.length ?? 0;
  }
  return count;
}

function holdsImage(part: ModelMessage['content'][number]): boolean {
  return part.type === 'image' || (part.type === 'tool_result' && (part.images?.length ?? 0) > 0);
}

function olderImageNote(image: ImagePart): string {
  return `[An earlier image${image.name ? ` (${image.name})` : ''} is no longer sent: a request carries at most 100 images.]`;
}

/**
 * A request payload as a trace keeps it: each image's base64 replaced by its sha256 (the store
 * holds the bytes once; a trace of every call must not copy megabytes each time).
 */
export function elideImageData<T>(payload: T): T {
  return JSON.parse(
    JSON.stringify(payload, function (this: unknown, key: string, value: unknown) {
      const holder = this as { type?: unknown; sha256?: unknown };
      if (key === 'data' && holder?.type === 'image' && typeof holder.sha256 === 'string')
        return `[image ${holder.sha256}, not repeated in traces]`;
      return value;
    }),
  ) as T;
}
