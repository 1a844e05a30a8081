/**
 * Real WebP files for the tests (issue 36), encoded by libwebp in WebAssembly (@jsquash/webp's
 * encoder), from pixels drawn with jimp.
 */
import { readFileSync } from 'node:fs';
import { Jimp } from 'jimp';

type Encode = (data: ImageData, options?: { quality?: number; lossless?: number }) => Promise<ArrayBuffer>;
let encoder: Promise<Encode> | undefined;

function webpEncoder(): Promise<Encode> {
  encoder ??= (async () => {
    const glue = (await import('@jsquash/webp/encode.js')) as unknown as {
      default: Encode;
      init(module: WebAssembly.Module): Promise<unknown>;
    };
    const simd = require.resolve('@jsquash/webp/codec/enc/webp_enc_simd.wasm');
    await glue.init(await WebAssembly.compile(readFileSync(simd)));
    return glue.default;
  })();
  return encoder;
}

/**
 * A WebP of width×height: `noise` draws random pixels (a photograph's worth of detail, so the
 * encoding is large), else two colours.
 */
export async function webpImage(
  width: number,
  height: number,
  options: { noise?: boolean; lossless?: boolean; quality?: number } = {},
): Promise<Buffer> {
  const data = new Uint8ClampedArray(width * height * 4);
  let seed = 12345;
  for (let index = 0; index < data.length; index += 4) {
    if (options.noise) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      data.set([seed & 0xff, (seed >>> 8) & 0xff, (seed >>> 16) & 0xff, 255], index);
    } else data.set(index / 4 < (width * height) / 2 ? [200, 40, 40, 255] : [40, 40, 200, 255], index);
  }
  const encode = await webpEncoder();
  const image = { data, width, height, colorSpace: 'srgb' } as unknown as ImageData;
  return Buffer.from(
    await encode(image, { quality: options.quality ?? 90, ...(options.lossless ? { lossless: 1 } : {}) }),
  );
}

/** The colour of a pixel of a prepared image's bytes, as 0xRRGGBBAA. */
export async function pixelOf(bytes: Buffer, x: number, y: number): Promise<number> {
  return (await Jimp.read(bytes)).getPixelColor(x, y);
}
