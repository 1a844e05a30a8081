/**
 * The ImageFiles port on the local disk: a workspace picture read and prepared (prepare-image.ts).
 * The file is opened once and everything is checked on what was opened (its type, its size), then
 * read from that same handle, never more than the limit: a FIFO, device or folder named .png — or
 * a file swapped for one between the caller's checks and this read — is refused without blocking,
 * and a file that grows while it is read is not read past the limit.
 */
import { constants, promises as fs } from 'node:fs';
import type { ImageFiles } from '../../core/ports';
import { IMAGE_LIMITS } from '../../core/images/image-limits';
import { ImageError, prepareImage } from './prepare-image';

export function nodeImageFiles(modelSeesImages: ImageFiles['modelSeesImages']): ImageFiles {
  return {
    modelSeesImages,
    async read(absolute, name) {
      return prepareImage(await readPicture(absolute, name), { name });
    },
  };
}

async function readPicture(absolute: string, name: string): Promise<Buffer> {
  const limit = IMAGE_LIMITS.maxInputBytes;
  const tooLarge = (size: number) =>
    new ImageError(`${name} is ${(size / 1_048_576).toFixed(1)} MB; images over ${limit / 1_048_576} MB are not read.`);
  // Non-blocking: opening a FIFO with no writer would otherwise wait forever.
  const handle = await fs.open(absolute, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new ImageError(`${name} is not a file (a folder, a pipe or a device): not read.`);
    if (stat.size > limit) throw tooLarge(stat.size);
    const buffer = Buffer.alloc(stat.size + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > stat.size) throw new ImageError(`${name} changed while it was read: not read. Try again.`);
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}
