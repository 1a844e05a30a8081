/**
 * The versions of each file whose line numbers a conversation's model knows: the content a
 * read_file call returned (numbered), and the content its own writes and edits produced. An
 * edit that quotes read_file's line-number prefixes is placed by those numbers only while the
 * file is still at such a version; a file a formatter, the user or a command changed since may
 * have the quoted lines at other numbers, and a line that merely looks the same would be hit.
 *
 * A version is known by a hash of its text with `\r\n` read as `\n` (read_file numbers lines
 * the same either way), and comes with how many of its first lines have the numbers the model
 * saw: all of them after a read or a whole-file write, those above the first replacement that
 * added or removed lines after an edit (the model's numbers below it are one read old).
 */
import { createHash } from 'node:crypto';

/** Versions remembered per conversation and file; the oldest go first. */
const VERSIONS_PER_FILE = 8;
/** Conversations × files remembered; the oldest are forgotten first. */
const MAX_TRACKED = 500;

interface Version {
  hash: string;
  /** Lines (from the first) whose numbers are those the model saw. */
  knownLines: number;
}

export class ReadVersions {
  private readonly files = new Map<string, Version[]>();

  /** The model saw every line of `content` numbered, or wrote it whole. */
  sawWhole(key: string, content: string | readonly string[]): void {
    this.remember(key, { hash: versionHash(content), knownLines: Infinity });
  }

  /**
   * The model's own edit produced `after`, whose first `knownLines` lines have the numbers it
   * saw (apply-edits.ts: those above the first replacement that added or removed lines).
   */
  edited(key: string, after: readonly string[], knownLines: number): void {
    if (knownLines > 0) this.remember(key, { hash: versionHash(after), knownLines });
  }

  /** How many of `content`'s first lines have the numbers the model saw (0: none). */
  knownLines(key: string, content: string): number {
    const hash = versionHash(content);
    let known = 0;
    for (const version of this.files.get(key) ?? [])
      if (version.hash === hash) known = Math.max(known, version.knownLines);
    return known;
  }

  private remember(key: string, version: Version): void {
    const versions = (this.files.get(key) ?? []).filter(
      (known) => known.hash !== version.hash || known.knownLines > version.knownLines,
    );
    versions.push(version);
    if (versions.length > VERSIONS_PER_FILE) versions.shift();
    this.files.delete(key);
    this.files.set(key, versions);
    if (this.files.size > MAX_TRACKED) this.files.delete(this.files.keys().next().value!);
  }
}

function versionHash(content: string | readonly string[]): string {
  const hash = createHash('sha256');
  let carriage = false;
  for (let piece of typeof content === 'string' ? [content] : content) {
    if (piece === '') continue;
    // A `\r\n` may be split between two pieces.
    if (carriage && piece[0] !== '\n') hash.update('\r');
    carriage = piece.endsWith('\r');
    if (carriage) piece = piece.slice(0, -1);
    hash.update(piece.replace(/\r\n/g, '\n'));
  }
  if (carriage) hash.update('\r');
  return hash.digest('hex');
}
