/**
 * The limits an image is prepared to before any model sees it (issue 36). One set for every
 * provider, the strictest of them, so an image prepared once (and stored once) can go to
 * whichever model the conversation switches to:
 * - Anthropic: at most 8000 px a side, 5 MB per image, 100 images per request, and images with
 *   a long side over 1568 px are scaled down by the server anyway (costing time, not quality);
 * - OpenAI: 20 MB per image; "high detail" works on a 2048 px square, then 768 px short side.
 * So: the long side at most 1568 px, at most 4 MB encoded (base64 adds a third: under 5.4 MB
 * of text, within every server's body limit), at most 20 images per message and 100 per request.
 */
export const IMAGE_LIMITS = {
  /** The long side after scaling, in pixels (Anthropic's recommended maximum). */
  maxLongSide: 1568,
  /** Encoded bytes after scaling; a larger result is re-encoded as JPEG at falling quality. */
  maxBytes: 4 * 1024 * 1024,
  /** What we read of a file or paste before looking at it (a screenshot is rarely over 15 MB). */
  maxInputBytes: 30 * 1024 * 1024,
  /**
   * Pixels the header may claim before anything is decoded: 50 megapixels (an 8K screenshot is
   * 33). A decompression bomb — a tiny file claiming gigapixels — is refused here, by its header.
   */
  maxInputPixels: 50_000_000,
  /** Images one message (a paste, a read) may carry. */
  maxPerMessage: 20,
  /** Images one request may carry (Anthropic's limit); the oldest are replaced by a note beyond it. */
  maxPerRequest: 100,
} as const;

/** The formats we accept. SVG is text (a program, really) and is never rasterized. */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

/**
 * Anthropic's estimate of an image's cost in tokens: width × height / 750 (about 1,600 at 1092²).
 * The sizes come from events and imported files too, so each side is taken within 1..maxLongSide
 * (what a prepared image is; a missing or hostile size counts as the largest): the meter and the
 * cost estimate never go negative, NaN or astronomical because of what a file claims.
 */
export function imageTokens(width: number, height: number): number {
  return Math.ceil((boundedSide(width) * boundedSide(height)) / 750);
}

function boundedSide(side: number): number {
  if (typeof side !== 'number' || !Number.isFinite(side)) return IMAGE_LIMITS.maxLongSide;
  return Math.min(Math.max(Math.round(side), 1), IMAGE_LIMITS.maxLongSide);
}

/**
 * Who holds the images of the messages queued for a conversation (they are not in it yet): the
 * store keeps a use of them under this name, so deleting another conversation does not free
 * them while they wait, and deleting this one frees them with it.
 */
export function queuedImagesHolder(conversationId: string): string {
  return `queued:${conversationId}`;
}
