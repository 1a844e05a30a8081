/**
 * A turn's edits as hunks to review, from its checkpoint: the text each file had before the turn
 * and the text the turn left. What is too big to carry in the conversation's events (and to
 * review line by line) says so instead — Open Diff and Revert This Turn still work for it.
 */
import type { TextContent } from '../workspace/text-file';
import type { ReviewedFile } from './hunk-schema';
import { computeHunks, hunkSize } from './hunks';

/** Texts longer than this (characters) are not compared line by line. */
export const REVIEW_MAX_CHARS = 20 * 1024 * 1024;
/** The hunks of one file may carry this many characters at most… */
export const FILE_HUNK_CHARS = 256 * 1024;
/** …and those of one turn this many. */
export const TURN_HUNK_CHARS = 1024 * 1024;

export interface TurnEdit {
  /** Relative to the workspace folder, with "/". */
  path: string;
  /** The text before the turn; null: the turn created the file; a size: too large to keep a copy of. */
  before: string | null | { tooLarge: number };
  /** The text the turn left (maybe in pieces); undefined when it was written as bytes (a big file's edit). */
  after: TextContent | undefined;
}

export function reviewTurn(edits: readonly TurnEdit[]): ReviewedFile[] {
  let budget = TURN_HUNK_CHARS;
  return edits.map((edit) => {
    const change = edit.before === null ? 'created' : 'modified';
    const base = { path: edit.path, change } as const;
    const refuse = (reason: string): ReviewedFile => ({ ...base, unreviewable: reason });
    const before = edit.before;
    if (before !== null && typeof before === 'object')
      return refuse(`it was ${megabytes(before.tooLarge)} MB, too large to keep a copy of`);
    if (edit.after === undefined) return refuse('it is too large to review hunk by hunk');
    const pieces = typeof edit.after === 'string' ? [edit.after] : edit.after;
    const afterLength = pieces.reduce((sum, piece) => sum + piece.length, 0);
    if (afterLength > REVIEW_MAX_CHARS || (before?.length ?? 0) > REVIEW_MAX_CHARS)
      return refuse(`it is over ${megabytes(REVIEW_MAX_CHARS)} MB, too large to review hunk by hunk`);
    const hunks = computeHunks(before, pieces.join(''));
    const size = hunks.reduce((sum, hunk) => sum + hunkSize(hunk), 0);
    if (size > FILE_HUNK_CHARS) return refuse('its changes are too large to review hunk by hunk');
    if (size > budget) return refuse('this turn changed too much to review every file hunk by hunk');
    budget -= size;
    return { ...base, hunks };
  });
}

function megabytes(bytes: number): string {
  return (bytes / 1_048_576).toFixed(0);
}
