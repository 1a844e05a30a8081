/**
 * The file operations the store needs, as a port: the Node implementation below, and in tests
 * one that fails on demand (disk full, read-only storage) to prove nothing is lost.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs/promises';
import { constants } from 'node:fs';
import { notAFile, openRegularFile, readRegularFile, tooLarge, UnusableFileError } from './regular-file';

/**
 * The most a store file may hold to be read: sql.js holds the whole database in memory (twice,
 * while it is written out), so a larger file is set aside, never read. A store of years of
 * daily use is a few hundred MB.
 */
export const STORE_FILE_CAP = 1024 ** 3;

/**
 * Every read and append goes only to a regular file, opened without blocking and without
 * following a link: anything else in a store file's place (a pipe, a device, a folder, a link,
 * a file over the cap) throws UnusableFileError, which the store answers by setting it aside.
 */
export interface StoreFiles {
  read(file: string, cap?: number): Promise<Buffer | undefined>;
  /** Reads `length` bytes from `start` (fewer at the end of the file). */
  readRange(file: string, start: number, length: number): Promise<Buffer>;
  /** Writes a whole file atomically: temp file, fsync, rename. */
  writeAtomic(file: string, data: Uint8Array): Promise<void>;
  /**
   * Appends and fsyncs, so an acknowledged write survives a crash. Never creates the file: a
   * journal that is not there is being folded (ENOENT), and the writer must not start another.
   */
  appendDurable(file: string, data: string): Promise<void>;
  /**
   * Size and identity (device and inode) of the entry itself (a link is not followed): a file
   * replaced by rename has a new identity. `unusable` says what it is when it is not a file.
   */
  fingerprint(file: string): Promise<{ size: number; id: string; unusable?: string } | undefined>;
  rename(from: string, to: string): Promise<void>;
  /** A second name for the file `from`; false (and nothing changed) if `to` exists. */
  link(from: string, to: string): Promise<boolean>;
  /** The names of the entries in a folder. */
  list(directory: string): Promise<string[]>;
  mkdir(directory: string): Promise<void>;
  /** Creates the file only if it does not exist; false if it does. */
  createExclusive(file: string, data: string): Promise<boolean>;
  remove(file: string): Promise<void>;
}

export const nodeStoreFiles: StoreFiles = {
  async read(file, cap = STORE_FILE_CAP) {
    try {
      return await readRegularFile(file, cap);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  },
  async readRange(file, start, length) {
    const { handle } = await openRegularFile(file, constants.O_RDONLY);
    try {
      // A file grown by gigabytes in place (a sparse file) is not read into memory.
      if (length > STORE_FILE_CAP) throw new UnusableFileError(file, 'grew by more than OpenAgent reads into memory');
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, start);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  },
  async writeAtomic(file, data) {
    // A new name each time, created exclusively: whatever was put at a temp name (a pipe, a
    // link to elsewhere) is never opened, followed or written through.
    const temp = `${file}.${process.pid}-${randomUUID().slice(0, 8)}.tmp`;
    try {
      const handle = await fs.open(temp, 'wx');
      try {
        await handle.writeFile(data);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fs.rename(temp, file);
    } catch (error) {
      await fs.rm(temp, { force: true }).catch(() => undefined);
      throw error;
    }
  },
  async appendDurable(file, data) {
    const { handle } = await openRegularFile(file, constants.O_WRONLY | constants.O_APPEND);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
  async fingerprint(file) {
    try {
      const stat = await fs.lstat(file, { bigint: true });
      const size = Number(stat.size);
      const unusable = notAFile(stat) ?? (size > STORE_FILE_CAP ? tooLarge(size, STORE_FILE_CAP) : undefined);
      return { size, id: `${stat.dev}:${stat.ino}`, ...(unusable ? { unusable } : {}) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  },
  rename: (from, to) => fs.rename(from, to),
  async link(from, to) {
    try {
      await fs.link(from, to);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
  },
  list: (directory) => fs.readdir(directory),
  async mkdir(directory) {
    await fs.mkdir(directory, { recursive: true });
  },
  async createExclusive(file, data) {
    try {
      await fs.writeFile(file, data, { flag: 'wx' });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
  },
  async remove(file) {
    await fs.rm(file, { force: true });
  },
};
