/**
 * The images of queued messages across a window reload (issue 36's leftover). The kept chat
 * names each image by reference (sha256, type, size, name: never the bytes, which are in the
 * store, held there by queued-image-holds.ts); after the reload the bytes are read back, so the
 * message goes out with them as it would have. Whatever cannot be read back — an image the store
 * no longer has, a damaged row, a reference that is not one — becomes a note in the message's
 * text, the way a reopened conversation's missing image does: the message itself is never lost.
 */
import { z } from 'zod';
import type { ImagePart } from '../llm/llm-client';
import type { ImageStore } from '../ports';
import { IMAGE_LIMITS, IMAGE_MEDIA_TYPES } from '../images/image-limits';
import { missingImageNote } from '../images/stored-images';
import type { ImageReference } from '../images/user-images';
import { MAX_QUEUED_PROMPT_CHARS, type QueueState, type RestoredPrompt } from './prompt-queue';

const referenceSchema = z.object({
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  mediaType: z.enum(IMAGE_MEDIA_TYPES),
  width: z.number().int().min(1).max(IMAGE_LIMITS.maxLongSide),
  height: z.number().int().min(1).max(IMAGE_LIMITS.maxLongSide),
  name: z.string().max(500).optional(),
});

/**
 * What the kept chat says of the queued messages' images: one list per message, in order
 * (beside the texts, so a build that knows nothing of it still reads the texts); undefined when
 * no message has images, so a queue of words is kept as it always was.
 */
export function keptQueueImages(state: QueueState): ImageReference[][] | undefined {
  if (!state.items.some((item) => item.images?.length)) return undefined;
  return state.items.map((item) => (item.images ?? []).map((image) => ({ ...image })));
}

/**
 * The kept messages with their images read back from `store`, in order. `images` is what the
 * kept chat said of them (anything: it was read from a file); one list per text.
 */
export async function readKeptQueue(
  texts: readonly string[],
  images: readonly unknown[] | undefined,
  store: ImageStore | undefined,
): Promise<RestoredPrompt[]> {
  const read = new Map<string, Promise<ImagePart | undefined>>();
  const fetch = (sha256: string) => {
    let found = read.get(sha256);
    if (!found) {
      // A store that fails to read is a missing image here: the message still comes back.
      found = store ? store.get(sha256).catch(() => undefined) : Promise.resolve(undefined);
      read.set(sha256, found);
    }
    return found;
  };
  const restored: RestoredPrompt[] = [];
  for (const [index, text] of texts.entries()) {
    const listed = images?.[index];
    if (listed === undefined || (Array.isArray(listed) && listed.length === 0)) {
      restored.push({ text });
      continue;
    }
    const attached: ImagePart[] = [];
    const notes: string[] = [];
    const references = Array.isArray(listed) ? listed : [listed];
    for (const candidate of references) {
      const reference = referenceSchema.safeParse(candidate);
      if (!reference.success) {
        notes.push('[an image attached to this message could not be read back]');
        continue;
      }
      if (attached.length >= IMAGE_LIMITS.maxPerMessage) {
        notes.push(missingImageNote(reference.data).replace('no longer stored', 'over the images one message carries'));
        continue;
      }
      const stored = await fetch(reference.data.sha256);
      // The reference's own name and size: the store keeps the first name the bytes came with.
      if (stored) attached.push({ ...stored, ...(reference.data.name ? { name: reference.data.name } : {}) });
      else notes.push(missingImageNote(reference.data));
    }
    restored.push({ text: withNotes(text, notes), ...(attached.length ? { attached } : {}) });
  }
  return restored;
}

/** The text with what became of its images, within what a queued message may hold. */
function withNotes(text: string, notes: readonly string[]): string {
  if (notes.length === 0) return text;
  for (const note of [notes.join('\n'), `[${notes.length} images attached to this message: no longer stored]`]) {
    const noted = `${text}\n\n${note}`;
    if (noted.trim().length <= MAX_QUEUED_PROMPT_CHARS) return noted;
  }
  return text;
}
