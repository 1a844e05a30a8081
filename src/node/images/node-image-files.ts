/**
 * The ImageFiles port on the local disk: a workspace picture read and prepared (prepare-image.ts).
 * The size is checked before the file is read, so a huge file is refused without loading it.
 */
import { promises as fs } from 'node:fs';
import type { ImageFiles } from '../../core/ports';
import { IMAGE_LIMITS } from '../../core/images/image-limits';
import { ImageError, prepareImage } from './prepare-image';

export function nodeImageFiles(modelSeesImages: ImageFiles['modelSeesImages']): ImageFiles {
  return {
    modelSeesImages,
    async read(absolute, name) {
      const { size } = await fs.stat(absolute);
      if (size > IMAGE_LIMITS.maxInputBytes)
        throw new ImageError(
          `${name} is ${(size / 1_048_576).toFixed(1)} MB; images over ${IMAGE_LIMITS.maxInputBytes / 1_048_576} MB are not read.`,
        );
      return prepareImage(await fs.readFile(absolute), { name });
    },
  };
}
