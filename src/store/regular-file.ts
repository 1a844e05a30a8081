/**
 * Opening a file the product keeps for itself (the store's snapshot, journal and lock, a task
 * board, a kept chat) only when it is a regular file, and never waiting to open it. A named
 * pipe in its place would block the open until someone writes to it, a device (a link to
 * /dev/zero) would be read without end, a folder or a link loop fails with a code nobody
 * explains, and a huge sparse file would be read whole into memory. So: lstat first (nothing
 * is opened that is not a file), then open with O_NOFOLLOW | O_NONBLOCK and fstat the
 * descriptor (the name may have been swapped between the two), and a cap on what is read.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, type BigIntStats, type Stats } from 'node:fs';
import * as fs from 'node:fs/promises';

/** A file that is not one the product can use: `reason` says what it is, as "is …". */
export class UnusableFileError extends Error {
  constructor(
    readonly file: string,
    /** e.g. "is a named pipe (FIFO), not a file". */
    readonly reason: string,
  ) {
    super(`${file} ${reason}`);
    this.name = 'UnusableFileError';
  }
}

export interface OpenOptions {
  /**
   * Follow a symbolic link to the file it names: for the user's own files outside every store
   * folder (the global memory, which a dotfiles repository may link in). What it leads to must
   * still be a regular file, opened without blocking.
   */
  follow?: boolean;
}

/** Flags absent on some systems (Windows has neither) count as none. */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const NON_BLOCKING = constants.O_NONBLOCK ?? 0;

/** What an entry that is not a regular file is, in words ("is …"); undefined for a regular file. */
export function notAFile(stats: Stats | BigIntStats): string | undefined {
  if (stats.isFile()) return undefined;
  if (stats.isDirectory()) return 'is a folder, not a file';
  if (stats.isFIFO()) return 'is a named pipe (FIFO), not a file';
  if (stats.isSymbolicLink()) return 'is a symbolic link, not a file';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'is a device, not a file';
  if (stats.isSocket()) return 'is a socket, not a file';
  return 'is not a regular file';
}

/**
 * Opens `file` with `flags` only if it is a regular file of at most `cap` bytes; throws
 * UnusableFileError otherwise, and the file system's error (ENOENT…) when it cannot be looked at.
 */
export async function openRegularFile(
  file: string,
  flags: number,
  cap = Infinity,
  options: OpenOptions = {},
): Promise<{ handle: fs.FileHandle; size: number }> {
  const entry = await (options.follow ? fs.stat(file) : fs.lstat(file)).catch((error: NodeJS.ErrnoException) => {
    // Nothing there yet: O_CREAT makes a regular file (O_EXCL aside, the fstat below still looks).
    if (error.code === 'ENOENT' && flags & constants.O_CREAT) return undefined;
    throw error;
  });
  if (entry) unusableUnless(file, entry, cap);
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, flags | (options.follow ? 0 : NO_FOLLOW) | NON_BLOCKING);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Swapped since the lstat: a link (ELOOP), or a pipe or device with nobody at the other end (ENXIO).
    if (code === 'ELOOP') throw new UnusableFileError(file, 'is a symbolic link, not a file');
    if (code === 'ENXIO') throw new UnusableFileError(file, 'is not a regular file');
    throw error;
  }
  try {
    const stats = await handle.stat();
    unusableUnless(file, stats, cap);
    return { handle, size: stats.size };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Reads a whole regular file of at most `cap` bytes (see openRegularFile). */
export async function readRegularFile(file: string, cap: number, options: OpenOptions = {}): Promise<Buffer> {
  const { handle, size } = await openRegularFile(file, constants.O_RDONLY, cap, options);
  try {
    // Up to the end, even past the size fstat gave (a file still growing, a file system that
    // reports 0), but never past the cap.
    let buffer = Buffer.allocUnsafe(Math.min(Math.max(size, 16 * 1024), cap + 1));
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > cap) throw new UnusableFileError(file, tooLarge(length, cap));
        const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, cap + 1));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > cap) throw new UnusableFileError(file, tooLarge(length, cap));
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

/** readRegularFile for the few places that must read before anything else runs (the CLI's line history). */
export function readRegularFileSync(file: string, cap: number): Buffer {
  unusableUnless(file, lstatSync(file), cap);
  const descriptor = openSync(file, constants.O_RDONLY | NO_FOLLOW | NON_BLOCKING);
  try {
    const stats = fstatSync(descriptor);
    unusableUnless(file, stats, cap);
    const buffer = Buffer.alloc(stats.size);
    let length = 0;
    while (length < buffer.length) {
      const read = readSync(descriptor, buffer, length, buffer.length - length, length);
      if (read === 0) break;
      length += read;
    }
    return buffer.subarray(0, length);
  } finally {
    closeSync(descriptor);
  }
}

/** Flags that write a regular file in place without blocking on a pipe or following a link. */
export const WRITE_IN_PLACE = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | NO_FOLLOW | NON_BLOCKING;

function unusableUnless(file: string, stats: Stats, cap: number): void {
  const what = notAFile(stats);
  if (what) throw new UnusableFileError(file, what);
  if (stats.size > cap) throw new UnusableFileError(file, tooLarge(stats.size, cap));
}

/** "is 3.0 GiB, more than …": a file too large to read into memory. */
export function tooLarge(size: number, cap: number): string {
  return `is ${readableSize(size)}, more than the ${readableSize(cap)} OpenAgent reads into memory`;
}

function readableSize(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${Math.ceil(bytes / 1024)} KiB`;
}
