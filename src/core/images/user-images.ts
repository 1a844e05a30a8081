/** Images the user attaches to a prompt (issue 36): into the history after its text, and as events show them. */
import type { ImagePart, ModelMessage } from '../llm/llm-client';
import { IMAGE_LIMITS } from './image-limits';

/**
 * Adds images to the last user message (the prompt just appended); refuses more than a message
 * may carry. Returns what the prompt's event says of them.
 */
export function appendUserImages(history: ModelMessage[], images: readonly ImagePart[]): ImageReference[] {
  if (images.length === 0) return [];
  if (images.length > IMAGE_LIMITS.maxPerMessage)
    throw new Error(`${images.length} images attached; a message carries at most ${IMAGE_LIMITS.maxPerMessage}.`);
  const last = history.at(-1);
  // A new content array rather than a push: caches keyed on the array see the change.
  if (last?.role === 'user') last.content = [...last.content, ...images];
  else history.push({ role: 'user', content: [...images] });
  return images.map(imageReference);
}

export type ImageReference = ReturnType<typeof imageReference>;

/** What an event says of an image: enough to show and find it, never its bytes. */
export function imageReference(image: ImagePart): {
  sha256: string;
  mediaType: string;
  width: number;
  height: number;
  name?: string;
} {
  return {
    sha256: image.sha256,
    mediaType: image.mediaType,
    width: image.width,
    height: image.height,
    ...(image.name ? { name: image.name } : {}),
  };
}
