/**
 * What the model is told about the hunks the user undid: short, by file and line, with the
 * lines that went and the lines that came back — so it does not build on edits that are gone,
 * nor quietly make them again.
 */
import type { ReviewedHunk } from './review-state';

/** Lines shown of each side of a hunk. */
const LINES_PER_SIDE = 6;
/** The longest line shown (a minified line is cut). */
const LINE_CHARS = 200;
/** The note stops adding hunks past this size. */
const NOTE_CHARS = 4_000;

export interface UndoneHunk {
  path: string;
  hunk: ReviewedHunk;
  /** Undoing it deleted the file (the agent had created it). */
  deleted: boolean;
}

export function undoneNote(undone: readonly UndoneHunk[]): string {
  const header =
    '[The user reviewed your file edits and undid these hunks; your other edits stay. ' +
    '"-" lines were yours and are gone, "+" lines are back as they were. Do not make these ' +
    'changes again unless asked, and read a file again before editing it.]';
  const parts: string[] = [header];
  let size = header.length;
  const deletedFiles = new Set<string>();
  for (const [position, item] of undone.entries()) {
    if (item.deleted && deletedFiles.has(item.path)) continue;
    const part = item.deleted ? `${item.path}: deleted (you had created it).` : describeHunk(item.path, item.hunk);
    if (item.deleted) deletedFiles.add(item.path);
    if (size + part.length > NOTE_CHARS && parts.length > 1) {
      parts.push(`… and ${undone.length - position} more undone hunk(s).`);
      break;
    }
    parts.push(part);
    size += part.length;
  }
  return parts.join('\n');
}

function describeHunk(path: string, hunk: ReviewedHunk): string {
  const at = hunk.undoneAt ?? hunk.beforeLine + 1;
  const where =
    hunk.removed.length === 0
      ? `${path} after line ${at - 1}: your ${plural(hunk.added.length, 'line')} removed`
      : hunk.removed.length === 1
        ? `${path} line ${at}`
        : `${path} lines ${at}-${at + hunk.removed.length - 1}`;
  return [where, ...side('-', hunk.added), ...side('+', hunk.removed)].join('\n');
}

function side(mark: '-' | '+', lines: readonly string[]): string[] {
  const shown = lines
    .slice(0, LINES_PER_SIDE)
    .map((line) => `${mark} ${line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}…` : line}`);
  if (lines.length > LINES_PER_SIDE) shown.push(`${mark} … ${lines.length - LINES_PER_SIDE} more`);
  return shown;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
