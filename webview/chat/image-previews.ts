/**
 * The previews of images the chat shows (issue 36): a prompt's, a queued message's, a tool's.
 * Events name images by sha256; the host posts each preview once (a small data URL), and every
 * <img> waiting for it — the transcript re-renders turns as they scroll — is filled from here.
 */

/** What an event or a queued message says of an image. */
export interface ImageRef {
  sha256: string;
  width: number;
  height: number;
  name?: string;
}

/** The previews side. */
export const PREVIEW_PX = 64;

const previews = new Map<string, string>();

/** Previews from the host: kept, and every image already drawn waiting for one is filled. */
export function addPreviews(list: ReadonlyArray<{ sha256: string; url: string }>): void {
  for (const { sha256, url } of list) {
    // Only images: the CSP allows data: for img-src, and nothing else is ever given one.
    if (!/^data:image\/(png|jpeg|gif|webp);base64,/.test(url)) continue;
    previews.set(sha256, url);
    for (const image of document.querySelectorAll<HTMLImageElement>(`img[data-sha256="${CSS.escape(sha256)}"]`))
      image.src = url;
  }
}

/** A row of previews of `images`, each titled with its name and size. */
export function imageStrip(images: readonly ImageRef[], className = 'image-strip'): HTMLElement {
  const strip = document.createElement('div');
  strip.className = className;
  for (const ref of images) {
    const image = document.createElement('img');
    image.className = 'image-preview';
    image.dataset.sha256 = ref.sha256;
    const label = `${ref.name ?? 'image'} (${ref.width}×${ref.height})`;
    image.alt = label;
    image.title = label;
    image.width = PREVIEW_PX;
    image.height = PREVIEW_PX;
    const url = previews.get(ref.sha256);
    if (url) image.src = url;
    strip.append(image);
  }
  return strip;
}

/** The images an event names (a prompt's or a tool result's), or none. */
export function eventImages(event: object): ImageRef[] {
  const images = (event as { images?: unknown }).images;
  return Array.isArray(images) ? (images as ImageRef[]) : [];
}
