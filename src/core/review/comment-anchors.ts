/**
 * Where a review comment points while its file changes (issue 36): the lines it was made on are
 * followed through each edit of the document (lines added or removed above it move it; an edit
 * inside it stretches or shrinks it), then checked against the code it was made on. When those
 * lines no longer hold that code, the code is looked for in the file (nearest to where the
 * comment was) — an agent's edit that rewrites the whole file, or a paste that moved the block,
 * leaves the comment on its code. When the code is nowhere, the comment is outdated: it stays
 * where its lines were and is still sent, with the code it was made on.
 *
 * Lines are 0-based here; messages to the model say them 1-based.
 */

/** The lines a comment is on: first and last, inclusive. */
export interface LineRange {
  startLine: number;
  endLine: number;
}

/** One edit of a document, as the editor reports it: the replaced range and the text put there. */
export interface TextChange {
  startLine: number;
  startCharacter: number;
  endLine: number;
  endCharacter: number;
  text: string;
}

/** Where a comment is after the change, and whether the change touched its lines. */
export interface ShiftedRange extends LineRange {
  touched: boolean;
}

/** Follows `range` through one change. */
export function shiftRange(range: LineRange, change: TextChange): ShiftedRange {
  const added = countNewlines(change.text);
  const delta = added - (change.endLine - change.startLine);
  const { startLine, endLine } = range;
  // Wholly above (ending at the very start of the first line counts: that line's text is whole).
  if (change.endLine < startLine || (change.endLine === startLine && change.endCharacter === 0))
    return { startLine: startLine + delta, endLine: endLine + delta, touched: false };
  // Wholly below.
  if (change.startLine > endLine) return { startLine, endLine, touched: false };
  // Inside or across: what is left of the lines is where the comment stays.
  const replacedEnd = change.startLine + added;
  if (change.startLine < startLine && change.endLine > endLine) {
    // Replaced whole (a file rewritten): where it was, within the new text, for the code's search.
    const start = Math.min(startLine, replacedEnd);
    return { startLine: start, endLine: Math.min(start + (endLine - startLine), replacedEnd), touched: true };
  }
  const start = change.startLine < startLine ? replacedEnd : startLine;
  const end = change.endLine > endLine ? replacedEnd : endLine + delta;
  return { startLine: Math.max(0, start), endLine: Math.max(Math.max(0, start), end), touched: true };
}

/** Follows `range` through the changes of one document event, in the order given. */
export function shiftRangeThrough(range: LineRange, changes: readonly TextChange[]): ShiftedRange {
  let current: ShiftedRange = { ...range, touched: false };
  for (const change of changes) {
    const next = shiftRange(current, change);
    current = { ...next, touched: current.touched || next.touched };
  }
  return current;
}

/** Where the comment's code is in `lines` now: on its range, else the nearest place that holds it. */
export interface Located extends LineRange {
  /** The code is nowhere in the file: the comment stays on its (clamped) lines. */
  outdated: boolean;
}

/** Code longer than this (lines) is looked for by its first lines only. */
const SEARCH_LINES = 40;

export function locateCode(lines: readonly string[], range: LineRange, code: readonly string[]): Located {
  const last = Math.max(0, lines.length - 1);
  const clamped = clampRange(range, last);
  if (code.length === 0) return { ...clamped, outdated: false };
  if (holds(lines, range.startLine, code) && range.endLine - range.startLine + 1 === code.length)
    return { startLine: range.startLine, endLine: range.endLine, outdated: false };
  // A comment on blank lines has nothing to look for: any blank line would do, so none does.
  if (code.every((line) => line.trim() === '')) return { ...clamped, outdated: true };
  const probe = code.slice(0, SEARCH_LINES);
  let best: number | undefined;
  for (let at = 0; at + code.length <= lines.length; at++) {
    if (lines[at] !== probe[0] || !holds(lines, at, probe)) continue;
    if (best === undefined || Math.abs(at - range.startLine) < Math.abs(best - range.startLine)) best = at;
  }
  if (best === undefined) return { ...clamped, outdated: true };
  return { startLine: best, endLine: best + code.length - 1, outdated: false };
}

/** The text of `range` in `lines` (clamped to the file). */
export function linesOf(lines: readonly string[], range: LineRange): string[] {
  const clamped = clampRange(range, Math.max(0, lines.length - 1));
  return lines.slice(clamped.startLine, clamped.endLine + 1);
}

function holds(lines: readonly string[], at: number, code: readonly string[]): boolean {
  if (at < 0 || at + code.length > lines.length) return false;
  return code.every((line, index) => lines[at + index] === line);
}

function clampRange(range: LineRange, last: number): LineRange {
  const startLine = Math.min(Math.max(0, range.startLine), last);
  return { startLine, endLine: Math.min(Math.max(startLine, range.endLine), last) };
}

function countNewlines(text: string): number {
  let count = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) count++;
  return count;
}
