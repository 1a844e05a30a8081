/**
 * Thumbnails for the developer panel's inspector (issue 36): the panel asks for the images of the
 * rows it has on screen, by sha256; they are read back from the conversation store's ImageStore,
 * made small (image-thumbnail.ts: at most 160 px a side, a few kilobytes) and posted as data URLs.
 * What was made is kept by sha256 in a bounded cache, so scrolling back and forth or a reloaded
 * panel costs no second decode; an image the store no longer has is said so, never guessed at.
 */
import type { ImagePart } from '../../core/llm/llm-client';
import type { ImageStore } from '../../core/ports';
import { MAX_THUMBNAILS_PER_MESSAGE, type HostToPanel, type PanelThumbnail } from '../../protocol/messages';

/** Where the panel's thumbnails come from: the same store and thumbnail maker as the chat's previews. */
export interface PanelImageSource {
  store: Pick<ImageStore, 'get'>;
  /** A small data URL of a stored image, or undefined when none can be made. */
  thumbnail(image: ImagePart): Promise<string | undefined>;
}

/** The most thumbnails kept made, and the most characters they may hold together. */
export const MAX_CACHED_THUMBNAILS = 200;
export const MAX_CACHED_THUMBNAIL_CHARS = 8_000_000;
/** Thumbnails per posted message: a screenful of rows arrives in a few small posts, not one large one. */
export const THUMBNAILS_PER_POST = 16;

type Made = { url: string } | { problem: 'no_preview' };

export class PanelThumbnails {
  /** Made thumbnails by sha256, oldest first (a Map keeps insertion order; a hit moves to the end). */
  private readonly cache = new Map<string, Made>();
  private cachedChars = 0;
  /** Thumbnails being made, so two rows naming one image decode it once. */
  private readonly making = new Map<string, Promise<PanelThumbnail>>();

  constructor(
    private readonly source: PanelImageSource | undefined,
    private readonly post: (message: HostToPanel) => void,
  ) {}

  /** How many thumbnails are kept made (for tests of the bound). */
  get cachedCount(): number {
    return this.cache.size;
  }

  /** The panel asked for these (already checked by the protocol): each is answered, made or not. */
  async request(sha256s: readonly string[]): Promise<void> {
    const wanted = [...new Set(sha256s)].slice(0, MAX_THUMBNAILS_PER_MESSAGE);
    const answers = await Promise.all(wanted.map((sha256) => this.thumbnail(sha256)));
    for (let start = 0; start < answers.length; start += THUMBNAILS_PER_POST)
      this.post({ type: 'image_thumbnails', thumbnails: answers.slice(start, start + THUMBNAILS_PER_POST) });
  }

  private thumbnail(sha256: string): Promise<PanelThumbnail> {
    const cached = this.cache.get(sha256);
    if (cached) {
      this.cache.delete(sha256);
      this.cache.set(sha256, cached);
      return Promise.resolve({ sha256, ...cached });
    }
    let made = this.making.get(sha256);
    if (!made) {
      made = this.make(sha256).finally(() => this.making.delete(sha256));
      this.making.set(sha256, made);
    }
    return made;
  }

  private async make(sha256: string): Promise<PanelThumbnail> {
    if (!this.source) return { sha256, problem: 'no_preview' };
    let image: ImagePart | undefined;
    try {
      image = await this.source.store.get(sha256);
    } catch {
      // The store could not be read just now: not kept, so a later look tries again.
      return { sha256, problem: 'no_preview' };
    }
    // Not kept either: an image put later (a chat still saving it) shows on the next look.
    if (!image) return { sha256, problem: 'gone' };
    const url = await this.source.thumbnail(image).catch(() => undefined);
    const made: Made = url && isImageDataUrl(url) ? { url } : { problem: 'no_preview' };
    this.keep(sha256, made);
    return { sha256, ...made };
  }

  private keep(sha256: string, made: Made): void {
    this.cache.set(sha256, made);
    this.cachedChars += 'url' in made ? made.url.length : 0;
    while (this.cache.size > MAX_CACHED_THUMBNAILS || this.cachedChars > MAX_CACHED_THUMBNAIL_CHARS) {
      const [oldest, dropped] = this.cache.entries().next().value as [string, Made];
      this.cache.delete(oldest);
      this.cachedChars -= 'url' in dropped ? dropped.url.length : 0;
    }
  }
}

/** Only an image data URL may reach an <img> (the panel checks again: it trusts no message). */
export function isImageDataUrl(url: string): boolean {
  return /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2}$/.test(url);
}
