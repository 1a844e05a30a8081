/** Real images for the tests (issue 36): PNGs drawn with jimp and prepared as the product prepares them. */
import { Jimp } from 'jimp';
import { prepareImage } from '../../../src/node/images/prepare-image';
import type { ImagePart } from '../../../src/core/llm/llm-client';

/** A PNG of one colour (`seed` picks it, so different seeds are different images), prepared. */
export async function preparedImage(
  seed: number,
  width = 40,
  height = 30,
  name = `shot-${seed}.png`,
): Promise<ImagePart> {
  const colour = ((seed * 2654435761) >>> 0) | 0xff;
  const image = new Jimp({ width, height, color: colour >>> 0 });
  // A pixel that differs per seed too: two seeds never encode to the same bytes.
  image.setPixelColor(((seed * 40503) >>> 8) | 0xff, seed % width, 0);
  const bytes = await image.getBuffer('image/png');
  return prepareImage(new Uint8Array(bytes), { name });
}
