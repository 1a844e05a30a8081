/**
 * An ImageStore in memory (issue 36): for a session without a store (the store could not be
 * opened) and for tests. Holds at most `limit` images; the oldest kept goes first.
 */
import type { ImagePart } from '../llm/llm-client';
import type { ImageStore } from '../ports';

export class MemoryImageStore implements ImageStore {
  private readonly images = new Map<string, ImagePart>();

  constructor(private readonly limit = 200) {}

  async put(image: ImagePart): Promise<void> {
    if (this.images.has(image.sha256)) return;
    this.images.set(image.sha256, image);
    while (this.images.size > this.limit) this.images.delete(this.images.keys().next().value as string);
  }

  async get(sha256: string): Promise<ImagePart | undefined> {
    return this.images.get(sha256);
  }
}
