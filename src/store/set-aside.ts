/**
 * Setting store files aside, never deleting them: damaged ones, and things that are not store
 * files at all (a pipe, a device, a folder, a link, a file larger than the store reads) found in
 * their place. And what the user is told: one message naming each problem, what was recovered
 * and where everything set aside is kept.
 */
import * as path from 'node:path';
import { UnusableFileError } from './regular-file';
import { StoreError } from './store-error';
import type { StoreFiles } from './store-files';

export interface Recovery {
  /** Where the damaged files are kept. */
  kept: string[];
  /** Journal entries replayed into the recovered store. */
  recovered: number;
  /** Journal lines that could not be read. */
  skipped: number;
  /** What happened, in words for the user. */
  message: string;
}

export class SetAside {
  /** Things moved aside from the lock's and taken journals' names, not told yet. */
  private readonly notes: Array<{ kept: string; problem: string }> = [];

  constructor(
    private readonly files: StoreFiles,
    private readonly now: () => number,
  ) {}

  /** Notes something not a store file moved from `file` to `kept`, for the next recovery told. */
  readonly note = (file: string, kept: string, reason: string): void => {
    this.notes.push({ kept, problem: `${path.basename(file)} ${reason}` });
  };

  /** The recovery to tell, with what was noted meanwhile (undefined: nothing to tell). */
  withNotes(recovery: Recovery | undefined): Recovery | undefined {
    if (this.notes.length === 0) return recovery;
    const notes = this.notes.splice(0);
    const problems = notes.map((item) => item.problem);
    const noted = notes.map((item) => item.kept);
    const kept = [...(recovery?.kept ?? []), ...noted];
    const message = recovery
      ? `${recovery.message} Also set aside: ${problems.join('; ')}, kept at ${noted.join(' and ')}.`
      : setAsideMessage({ problems, skipped: 0, kept });
    return { kept, recovered: recovery?.recovered ?? 0, skipped: recovery?.skipped ?? 0, message };
  }

  /**
   * Reads a store file; one that is not a file the store can use (a pipe, a device, a folder, a
   * link, more than it reads into memory) is moved aside unopened, as a damaged file is.
   */
  async readOrSetAside(file: string, kept: string[]): Promise<{ bytes?: Buffer; unusable?: string }> {
    try {
      return { bytes: await this.files.read(file) };
    } catch (error) {
      if (!(error instanceof UnusableFileError)) throw error;
      kept.push(await this.keepAside(file, error.reason));
      return { unusable: error.reason };
    }
  }

  /** Moves a damaged file aside, never deleting it; returns where it went. */
  async keepAside(file: string, reason = 'is damaged'): Promise<string> {
    const target = `${file}.unreadable-${this.stamp()}`;
    try {
      await this.files.rename(file, target);
    } catch (error) {
      throw new StoreError(
        `${file} ${reason}, and could not be moved aside: ${error instanceof Error ? error.message : String(error)}`,
        'io',
      );
    }
    return target;
  }

  /**
   * Keeps a damaged file aside under a second name (the original is replaced by what is
   * recovered from it, always by rename, so the kept name holds the bytes that were read). A
   * second name costs no room: a copy of a journal of hundreds of MB (or a sparse file) would
   * fill the disk. Copied where the file system has no hard links.
   */
  async copyAside(file: string, bytes: Buffer): Promise<string> {
    const target = `${file}.unreadable-${this.stamp()}`;
    const linked = await this.files.link(file, target).catch(() => false);
    if (!linked) await this.files.writeAtomic(target, bytes);
    return target;
  }

  /** Moves unreadable files aside (never deletes them) and returns where the first went. */
  async quarantine(snapshotFile: string, journalFile: string): Promise<string> {
    const stamp = this.stamp();
    const target = `${snapshotFile}.unreadable-${stamp}`;
    await this.files.rename(snapshotFile, target).catch(() => undefined);
    await this.files.rename(journalFile, `${journalFile}.unreadable-${stamp}`).catch(() => undefined);
    return target;
  }

  private stamp(): string {
    return new Date(this.now()).toISOString().replace(/[:.]/g, '-');
  }
}

export function setAsideMessage(facts: {
  /** Each problem as words after "The conversation store was damaged: ". */
  problems: string[];
  /** Journal entries replayed; undefined when no journal was read back. */
  recovered?: number;
  skipped: number;
  kept: string[];
}): string {
  const { problems, recovered, skipped, kept } = facts;
  const replayed =
    recovered === undefined
      ? ''
      : `${recovered} saved entr${recovered === 1 ? 'y was' : 'ies were'} recovered from the journal` +
        `${skipped ? ` (${skipped} unreadable line${skipped === 1 ? '' : 's'} left out)` : ''}. `;
  return (
    `The conversation store was damaged: ${problems.join('; ')}. ${replayed}` +
    `The damaged files are kept at ${kept.join(' and ')}.`
  );
}

/** How a journal that was set aside or copied aside is described. */
export function journalProblem(facts: {
  unusable: string | undefined;
  ahead: boolean;
  headerReadable: boolean;
  damaged: number;
}): string {
  if (facts.unusable) return `the journal ${facts.unusable}`;
  if (facts.ahead) return 'the journal belongs to a newer database file than the one found';
  if (!facts.headerReadable) return 'the journal has a damaged first line';
  return `the journal has ${facts.damaged} damaged line${facts.damaged === 1 ? '' : 's'}`;
}
