/**
 * One small text document in a file, replaced atomically: written to a temporary file beside
 * it, flushed to disk, then renamed over it, so a reader (the next window, after a crash)
 * finds the old document or the new one, never half of either. A missing file reads as none.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { readRegularFile } from '../store/regular-file';

/** More than any kept document holds: a larger file is not read into memory. */
const READ_CAP = 64 * 1024 * 1024;

export class AtomicTextFile {
  constructor(private readonly file: string) {}

  async read(): Promise<string | undefined> {
    try {
      // Only a regular file, opened without blocking: a pipe or a device here must not hang the window.
      return (await readRegularFile(this.file, READ_CAP)).toString('utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async write(text: string): Promise<void> {
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    // Unique per write: two writers of one file (two windows, or two handles) never share a temp file.
    const temp = `${this.file}.${process.pid}.${randomUUID()}.tmp`;
    // Created, never opened if it exists (nor followed if it is a link): the rename then puts a
    // new file in place, so a document with other hard links leaves their content alone.
    const handle = await fs.open(temp, 'wx');
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await fs.rename(temp, this.file);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
  }
}
