/**
 * A small preview of a prepared image for the chat (issue 36): at most PREVIEW_SIDE pixels a side,
 * as a data URL of a few kilobytes, so the webview is never posted megabytes to draw a chip.
 * A WebP (stored before WebPs were re-encoded as PNG or JPEG) is shown as it is when small enough.
 */
import type * as JimpModule from 'jimp';
import { lazyModule } from '../../core/lazy-module';
import type { ImagePart } from '../../core/llm/llm-client';

const jimpModule = lazyModule(() => require('jimp') as typeof JimpModule);

export const PREVIEW_SIDE = 160;
/** The longest preview data URL posted (characters). */
export const MAX_PREVIEW_CHARS = 150_000;

export async function imageThumbnail(image: ImagePart): Promise<string | undefined> {
  const original = `data:${image.mediaType};base64,${image.data}`;
  if (Math.max(image.width, image.height) <= PREVIEW_SIDE && original.length <= MAX_PREVIEW_CHARS) return original;
  if (image.mediaType === 'image/webp') return original.length <= MAX_PREVIEW_CHARS ? original : undefined;
  try {
    const { Jimp } = jimpModule();
    const picture = await Jimp.read(Buffer.from(image.data, 'base64'));
    picture.scaleToFit({ w: PREVIEW_SIDE, h: PREVIEW_SIDE });
    const encoded = await picture.getBuffer('image/jpeg', { quality: 75 });
    const url = `data:image/jpeg;base64,${encoded.toString('base64')}`;
    return url.length <= MAX_PREVIEW_CHARS ? url : undefined;
  } catch {
    return undefined;
  }
}
