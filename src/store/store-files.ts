/**
 * The file operations the store needs, as a port: the Node implementation below, and in tests
 * one that fails on demand (disk full, read-only storage) to prove nothing is lost.
 */
import * as fs from 'node:fs/promises';
import { constants } from 'node:fs';

export interface StoreFiles {
  read(file: string): Promise<Buffer | undefined>;
  /** Reads `length` bytes from `start` (fewer at the end of the file). */
  readRange(file: string, start: number, length: number): Promise<Buffer>;
  /** Writes a whole file atomically: temp file, fsync, rename. */
  writeAtomic(file: string, data: Uint8Array): Promise<void>;
  /**
   * Appends and fsyncs, so an acknowledged write survives a crash. Never creates the file: a
   * journal that is not there is being folded (ENOENT), and the writer must not start another.
   */
  appendDurable(file: string, data: string): Promise<void>;
  /** Size and identity (device and inode): a file replaced by rename has a new identity. */
  fingerprint(file: string): Promise<{ size: number; id: string } | undefined>;
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
  async read(file) {
    try {
      return await fs.readFile(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  },
  async readRange(file, start, length) {
    const handle = await fs.open(file, 'r');
    try {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, start);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  },
  async writeAtomic(file, data) {
    const temp = `${file}.${process.pid}.tmp`;
    const handle = await fs.open(temp, 'w');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, file);
  },
  async appendDurable(file, data) {
    const handle = await fs.open(file, constants.O_WRONLY | constants.O_APPEND);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
  async fingerprint(file) {
    try {
      const stat = await fs.stat(file, { bigint: true });
      return { size: Number(stat.size), id: `${stat.dev}:${stat.ino}` };
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
