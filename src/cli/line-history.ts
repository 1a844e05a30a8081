/**
 * The interactive session's line history (↑ / ↓), kept in a file so it outlives the session:
 * one entry a line, oldest first. Losing it is harmless, so file errors are ignored.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readRegularFileSync, WRITE_IN_PLACE } from '../store/regular-file';

const MAX_ENTRIES = 500;

export class LineHistory {
  /** Newest first, as node:readline wants it. */
  private entries: string[];

  constructor(private readonly file: string | undefined) {
    this.entries = file ? readEntries(file) : [];
  }

  get lines(): readonly string[] {
    return this.entries;
  }

  /** Takes readline's history after a line was entered (newest first) and saves it. */
  replace(newestFirst: readonly string[]): void {
    const next = newestFirst.slice(0, MAX_ENTRIES);
    if (next.length === this.entries.length && next.every((line, index) => line === this.entries[index])) return;
    this.entries = next;
    if (!this.file) return;
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      // Never through a link, never waiting on a pipe put in its place (ELOOP, ENXIO: not kept).
      const descriptor = fs.openSync(this.file, WRITE_IN_PLACE, 0o600);
      try {
        if (fs.fstatSync(descriptor).isFile())
          fs.writeFileSync(descriptor, [...next].reverse().join('\n') + '\n', 'utf8');
      } finally {
        fs.closeSync(descriptor);
      }
    } catch {
      // A read-only or full disk only costs the history.
    }
  }
}

function readEntries(file: string): string[] {
  try {
    // Only a regular file, read without blocking: a pipe here must not freeze the CLI at start.
    return readRegularFileSync(file, 4 * 1024 * 1024)
      .toString('utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .reverse()
      .slice(0, MAX_ENTRIES);
  } catch {
    return [];
  }
}
