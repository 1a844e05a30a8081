/**
 * Puts a conversation's images in the store as they enter it (issue 36): the prompt's and a
 * tool result's, before the event that names them is recorded. Never throws: a store that fails
 * to write is told once (the conversation goes on; only reopening it later misses the image, and
 * says so in a note). Each image is written once per conversation, however often it is used.
 */
import type { ImagePart } from '../llm/llm-client';
import type { ImageStore } from '../ports';

export class ImageKeeper {
  /** sha256s this conversation has put (or tried to: a refused image is not tried again). */
  private readonly kept = new Set<string>();
  private told = false;

  constructor(
    private readonly store: ImageStore,
    private readonly conversationId: string,
    private readonly onError: (error: unknown) => void,
  ) {}

  readonly keep = async (images: readonly ImagePart[]): Promise<void> => {
    for (const image of images) {
      if (this.kept.has(image.sha256)) continue;
      this.kept.add(image.sha256);
      try {
        await this.store.put(image, this.conversationId);
      } catch (error) {
        if (this.told) continue;
        this.told = true;
        const reason = error instanceof Error ? error.message : String(error);
        const what = image.name ? `the image ${image.name}` : 'an image';
        this.onError(
          new Error(
            `Could not keep ${what} in the store (${reason}). The conversation goes on; reopened later, it will miss the image.`,
          ),
        );
      }
    }
  };
}
