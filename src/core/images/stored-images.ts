/**
 * A reopened conversation's images (issue 36): restore.ts rebuilds the history with each image as
 * a reference (an ImagePart without bytes); here the bytes are read back from the ImageStore, so
 * a continued conversation still sends them. An image the store no longer has (its rows deleted,
 * a store that fails to read, a conversation imported without them) becomes a text note saying
 * what it was — never a crash, and the history stays valid to send.
 */
import type { ImagePart, ModelMessage, TextPart, ToolResultPart } from '../llm/llm-client';
import type { ImageStore } from '../ports';
import type { ImageReference } from './user-images';

/** An image in a restored history whose bytes are still to be read (restore.ts makes these). */
export function pendingImage(reference: ImageReference): ImagePart {
  return { type: 'image', ...reference, mediaType: reference.mediaType as ImagePart['mediaType'], data: '' };
}

/** What the model reads where a stored image is gone. */
export function missingImageNote(image: Pick<ImagePart, 'name' | 'width' | 'height'>): string {
  return `[image ${image.name ?? 'without a name'}, ${image.width}×${image.height}: no longer stored]`;
}

/** The history with every pending image read from `store` (or replaced by its note); a new array. */
export async function withStoredImages(
  history: readonly ModelMessage[],
  store: ImageStore | undefined,
): Promise<ModelMessage[]> {
  const found = new Map<string, ImagePart | undefined>();
  const read = async (image: ImagePart): Promise<ImagePart | undefined> => {
    if (image.data) return image;
    if (!found.has(image.sha256)) {
      // A store that fails to read is a missing image here: the conversation still reopens.
      const stored = store ? await store.get(image.sha256).catch(() => undefined) : undefined;
      found.set(image.sha256, stored);
    }
    const stored = found.get(image.sha256);
    // The event's own name and size: the store keeps the first name the bytes came with.
    return stored && { ...stored, ...(image.name ? { name: image.name } : {}) };
  };
  const messages: ModelMessage[] = [];
  for (const message of history) {
    if (message.role !== 'user' || !message.content.some(holdsPending)) {
      messages.push(message);
      continue;
    }
    const content: Array<TextPart | ImagePart | ToolResultPart> = [];
    for (const part of message.content) {
      if (part.type === 'image') {
        const image = await read(part);
        content.push(image ?? { type: 'text', text: missingImageNote(part) });
      } else if (part.type === 'tool_result' && part.images?.length) {
        const images: ImagePart[] = [];
        const notes: string[] = [];
        for (const pending of part.images) {
          const image = await read(pending);
          if (image) images.push(image);
          else notes.push(missingImageNote(pending));
        }
        const { images: _pending, ...rest } = part;
        content.push({
          ...rest,
          ...(notes.length ? { output: `${part.output}\n${notes.join('\n')}` } : {}),
          ...(images.length ? { images } : {}),
        });
      } else content.push(part);
    }
    messages.push({ role: 'user', content });
  }
  return messages;
}

function holdsPending(part: ModelMessage['content'][number]): boolean {
  return (part.type === 'image' && !part.data) || (part.type === 'tool_result' && !!part.images?.some((i) => !i.data));
}
