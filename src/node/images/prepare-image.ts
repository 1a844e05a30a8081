/**
 * Bytes that claim to be an image → an image part a model can take (issue 36), or an ImageError
 * that says in words what was wrong. The order matters for hostile input:
 * 1. size and kind are checked first (empty, too large, SVG — which is text and never rasterized);
 * 2. the header is probed (image-size) before anything is decoded, so a decompression bomb — a
 *    tiny file claiming gigapixels — is refused by what it claims, not after it ate the memory;
 * 3. the picture is decoded, scaled to fit IMAGE_LIMITS and encoded again (jimp, pure JS): this
 *    also drops EXIF (a huge one, or a GPS position the user did not mean to send), proves the
 *    file is whole (a truncated JPEG fails here) and takes an animated GIF's first frame only.
 *    A GIF's first frame is measured too (it may claim more than the screen the header gives);
 *    a WebP is decoded by libwebp in WebAssembly (webp-decode.ts) and goes on as PNG or JPEG.
 * One picture is decoded at a time in the process: a prompt of twenty 50-megapixel @image
 * mentions (or twenty read_file calls at once) costs the memory of one, not of twenty.
 * jimp, image-size and the WebP decoder are loaded on first use: activation never reads them.
 */
import { createHash } from 'node:crypto';
import type * as ImageSizeModule from 'image-size';
import type * as JimpModule from 'jimp';
import { lazyModule } from '../../core/lazy-module';
import { IMAGE_LIMITS } from '../../core/images/image-limits';
import { gifFirstFrame } from './gif-frames';
import type * as WebpDecodeModule from './webp-decode';
import type { ImageMediaType, ImagePart } from '../../core/llm/llm-client';

const imageSizeModule = lazyModule(() => require('image-size') as typeof ImageSizeModule);
const jimpModule = lazyModule(() => require('jimp') as typeof JimpModule);
const webpModule = lazyModule(() => require('./webp-decode') as typeof WebpDecodeModule);

/** An image refused, with the reason in words for the user (and the model, in a tool result). */
export class ImageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImageError';
  }
}

const PROBED_TYPES: Record<string, ImageMediaType> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

export interface PrepareOptions {
  /** The file or paste name, for messages. */
  name?: string;
  limits?: Partial<typeof IMAGE_LIMITS>;
}

export async function prepareImage(bytes: Uint8Array, options: PrepareOptions = {}): Promise<ImagePart> {
  const limits = { ...IMAGE_LIMITS, ...options.limits };
  const label = options.name ?? 'The image';
  if (bytes.length === 0) throw new ImageError(`${label} is empty (0 bytes).`);
  if (bytes.length > limits.maxInputBytes)
    throw new ImageError(
      `${label} is ${megabytes(bytes.length)}; images over ${megabytes(limits.maxInputBytes)} are not read.`,
    );
  if (looksLikeSvg(bytes))
    throw new ImageError(
      `${label} is SVG: that is text (markup), not a picture, and is never rasterized. Read it as text.`,
    );

  let probed: { width?: number; height?: number; type?: string };
  try {
    probed = imageSizeModule().imageSize(bytes);
  } catch {
    throw new ImageError(
      `${label} is not a PNG, JPEG, GIF or WebP image (its content is not a picture format OpenAgent reads).`,
    );
  }
  const mediaType = probed.type ? PROBED_TYPES[probed.type] : undefined;
  if (!mediaType)
    throw new ImageError(
      `${label} is ${probed.type?.toUpperCase() ?? 'an unknown format'}; only PNG, JPEG, GIF and WebP are sent to models.`,
    );
  const width = probed.width ?? 0;
  const height = probed.height ?? 0;
  if (width <= 0 || height <= 0) throw new ImageError(`${label} claims a size of ${width}×${height}: not a picture.`);
  if (width * height > limits.maxInputPixels)
    throw new ImageError(
      `${label} claims ${width}×${height} pixels (${Math.round((width * height) / 1e6)} megapixels); ` +
        `images over ${limits.maxInputPixels / 1e6} megapixels are refused before decoding.`,
    );

  if (mediaType === 'image/gif') {
    // The decoder draws the first frame at its own size, which the header's screen size does not bound.
    const frame = gifFirstFrame(bytes);
    if (!frame) throw new ImageError(`${label} is a GIF without a picture in it: the file is damaged.`);
    if (
      frame.width * frame.height > limits.maxInputPixels ||
      frame.left + frame.width > width ||
      frame.top + frame.height > height
    )
      throw new ImageError(
        `${label} is a GIF whose first frame (${frame.width}×${frame.height} at ${frame.left},${frame.top}) does not fit ` +
          `its ${width}×${height} screen: the file is damaged or hostile, and is not decoded.`,
      );
  }
  return oneAtATime(() => reencode(bytes, mediaType, label, limits, options.name));
}

let decoding: Promise<unknown> = Promise.resolve();

/** Runs `work` after every decode asked before it: decoded pictures never pile up in memory. */
function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  const result = decoding.then(work, work);
  decoding = result.catch(() => undefined);
  return result;
}

async function reencode(
  bytes: Uint8Array,
  mediaType: ImageMediaType,
  label: string,
  limits: typeof IMAGE_LIMITS,
  name: string | undefined,
): Promise<ImagePart> {
  if (mediaType === 'image/webp' && isAnimatedWebp(bytes))
    throw new ImageError(`${label} is an animated WebP; only still pictures are read. Send a screenshot of one frame.`);
  const { Jimp } = jimpModule();
  let image: Awaited<ReturnType<typeof Jimp.read>>;
  try {
    image =
      mediaType === 'image/webp'
        ? Jimp.fromBitmap(await webpModule().decodeWebpPixels(bytes))
        : await Jimp.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } catch (error) {
    throw new ImageError(
      `${label} could not be decoded (${reason(error)}): the file is damaged or not what it claims.`,
    );
  }
  if (Math.max(image.width, image.height) > limits.maxLongSide)
    image.scaleToFit({ w: limits.maxLongSide, h: limits.maxLongSide });
  // Screenshots and diagrams stay lossless; photographs stay JPEG. Too large either way: JPEG at falling quality.
  const attempts: Array<{ type: 'image/png' | 'image/jpeg'; quality?: number }> =
    mediaType === 'image/jpeg'
      ? [
          { type: 'image/jpeg', quality: 85 },
          { type: 'image/jpeg', quality: 70 },
          { type: 'image/jpeg', quality: 50 },
        ]
      : [{ type: 'image/png' }, { type: 'image/jpeg', quality: 85 }, { type: 'image/jpeg', quality: 60 }];
  for (const attempt of attempts) {
    const encoded =
      attempt.type === 'image/png'
        ? await image.getBuffer('image/png')
        : await image.getBuffer('image/jpeg', { quality: attempt.quality });
    if (encoded.length <= limits.maxBytes) return part(encoded, attempt.type, image.width, image.height, name);
  }
  throw new ImageError(`${label} is still over ${megabytes(limits.maxBytes)} after scaling down; not sent.`);
}

function part(encoded: Buffer, mediaType: ImageMediaType, width: number, height: number, name?: string): ImagePart {
  return {
    type: 'image',
    mediaType,
    data: encoded.toString('base64'),
    width,
    height,
    sha256: createHash('sha256').update(encoded).digest('hex'),
    ...(name ? { name } : {}),
  };
}

/** A WebP whose extended header (VP8X) sets the animation flag. */
function isAnimatedWebp(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.subarray(12, 16)).toString('latin1') === 'VP8X' && ((bytes[20] ?? 0) & 0x02) !== 0;
}

/** SVG (and any XML) starts with markup, after an optional byte-order mark and white space. */
function looksLikeSvg(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.subarray(0, 512))
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase();
  return (
    head.startsWith('<svg') || (head.startsWith('<?xml') && head.includes('<svg')) || head.startsWith('<!doctype svg')
  );
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 120 ? `${message.slice(0, 120)}…` : message;
}
