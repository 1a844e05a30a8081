/**
 * The journal file's life among several processes (see SqlJsStore.fold): taken away by one
 * rename for a fold (`store.journal.folding-<pid>-<time>-<id>`), given back when the fold cannot
 * finish, a new one installed only where there is none, and taken journals of processes that
 * died mid-fold put back in place. None of these can overwrite another process's journal: a
 * stolen lock cannot make two folds, or a fold and an append, overwrite each other.
 */
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { LockLostError } from './file-lock';
import type { StoreFiles } from './store-files';

/** The infix of a journal taken away for a fold. */
const FOLDING = '.folding-';
/** A taken journal whose process is alive is still being folded for at most this long. */
const FOLD_STALE_MS = 60_000;
/** Journals this process has taken and is folding right now (its own leftovers are not). */
const foldingHere = new Set<string>();

export class JournalFiles {
  constructor(
    private readonly files: StoreFiles,
    /** store.journal */
    readonly file: string,
    private readonly now: () => number,
    /** Told where a taken journal that is not a usable file (a pipe, a folder…) was moved. */
    private readonly setAside: (file: string, kept: string, reason: string) => void = () => undefined,
  ) {}

  /** Reads the journal; one that is gone is being folded by another process (try again). */
  async read(start: number, length: number): Promise<Buffer> {
    try {
      return await this.files.readRange(this.file, start, length);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new LockLostError();
      throw error;
    }
  }

  /**
   * Runs `fold` with the journal taken away from everyone, if it is the one this process read
   * (`readId`), and the bytes appended to it after `readOffset` — by processes whose lock was
   * taken — for the fold to take in. The taken file is removed once `fold` has installed a new
   * journal, and given back if it throws.
   */
  async whileTaken(
    read: { id: string; offset: number },
    fold: (taken: { tail: Buffer }) => Promise<void>,
  ): Promise<void> {
    const taken = `${this.file}${FOLDING}${process.pid}-${this.now()}-${randomUUID().slice(0, 8)}`;
    // Marked before the rename: another store of this process must not take it for abandoned.
    foldingHere.add(taken);
    try {
      try {
        await this.files.rename(this.file, taken);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new LockLostError();
        throw error;
      }
      const fingerprint = await this.files.fingerprint(taken);
      const tail =
        fingerprint && fingerprint.id === read.id && fingerprint.size >= read.offset
          ? await this.files.readRange(taken, read.offset, fingerprint.size - read.offset)
          : undefined;
      // Not the journal this process read (or not where it left it): back untouched.
      if (!tail || (tail.length > 0 && tail[0] !== 0x0a)) {
        await this.giveBack(taken);
        throw new LockLostError();
      }
      try {
        await fold({ tail });
      } catch (error) {
        await this.giveBack(taken);
        throw error;
      }
      await this.files.remove(taken);
    } finally {
      foldingHere.delete(taken);
    }
  }

  /** Puts a taken journal back; if a journal is there already, the taken one waits for recover() to take it in. */
  private async giveBack(taken: string): Promise<void> {
    if (await this.files.link(taken, this.file)) await this.files.remove(taken);
  }

  /** Installs a new journal only where there is none: false if one appeared. */
  async install(header: Buffer): Promise<boolean> {
    const temp = `${this.file}.${process.pid}-${randomUUID().slice(0, 8)}.new`;
    await this.files.writeAtomic(temp, header);
    try {
      return await this.files.link(temp, this.file);
    } finally {
      await this.files.remove(temp);
    }
  }

  /** Whether a journal is taken for a fold right now (by this process or another, alive or not). */
  async anyTaken(): Promise<boolean> {
    return (await this.takenNames()).length > 0;
  }

  /**
   * Journals taken by processes that died before finishing their fold go back in place; while
   * one is being folded by a live process and there is no journal, the caller waits
   * (LockLostError). A taken journal that cannot go back (there is a journal again) is
   * returned, for the caller to take in what is newer in it and then remove.
   */
  async recover(): Promise<string[]> {
    const names = await this.takenNames();
    if (names.length === 0) return [];
    const prefix = `${path.basename(this.file)}${FOLDING}`;
    let journal = (await this.files.fingerprint(this.file)) !== undefined;
    const leftovers: string[] = [];
    for (const name of names.sort()) {
      const file = path.join(path.dirname(this.file), name);
      // Not a journal any process of ours wrote: moved aside, never linked in or read.
      const entry = await this.files.fingerprint(file);
      const unusable = entry?.unusable;
      if (unusable) {
        const kept = `${this.file}.unreadable-${this.now()}-${randomUUID().slice(0, 8)}`;
        await this.files.rename(file, kept);
        this.setAside(file, kept, unusable);
        continue;
      }
      const [pid, time] = name.slice(prefix.length).split('-').map(Number);
      const folding =
        pid === process.pid ? foldingHere.has(file) : this.now() - (time ?? 0) < FOLD_STALE_MS && isAlive(pid ?? 0);
      if (folding) {
        if (!journal) throw new LockLostError();
        continue;
      }
      if (!journal && (await this.files.link(file, this.file))) {
        await this.files.remove(file);
        journal = true;
      } else leftovers.push(file);
    }
    return leftovers;
  }

  private async takenNames(): Promise<string[]> {
    const prefix = `${path.basename(this.file)}${FOLDING}`;
    return (await this.files.list(path.dirname(this.file))).filter((name) => name.startsWith(prefix));
  }
}

/** Whether a process with this id exists (one we may not signal exists too). */
function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
