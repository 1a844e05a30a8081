/**
 * Hunks of an agent's edit: computing them from a file's text before and after a turn, finding
 * each again in the file as it is now (the user or a later turn may have changed it), and
 * putting a hunk's earlier lines back. A hunk is found only where its lines — and the unchanged
 * lines around it — are exactly as the agent left them, so an undo never touches anything else.
 */
import { diffLines, splitLines } from '../text/line-diff';
import type { Hunk } from './hunk-schema';

export type { Hunk } from './hunk-schema';

/** Unchanged lines kept on each side of a hunk, to find it again. */
export const CONTEXT_LINES = 3;

/** The hunks that turn `before` (null: the file did not exist) into `after`. */
export function computeHunks(before: string | null, after: string): Hunk[] {
  const afterLines = splitLines(after);
  if (before === null)
    return [
      { beforeLine: 0, afterLine: 0, removed: [], added: afterLines, above: [], below: [], atStart: true, atEnd: true },
    ];
  const beforeLines = splitLines(before);
  const changes = diffLines(beforeLines, afterLines);
  return changes.map((change, index) => {
    const previousEnd = changes[index - 1]?.afterEnd ?? 0;
    const nextStart = changes[index + 1]?.afterStart ?? afterLines.length;
    const aboveStart = Math.max(previousEnd, change.afterStart - CONTEXT_LINES);
    const belowEnd = Math.min(nextStart, change.afterEnd + CONTEXT_LINES);
    return {
      beforeLine: change.beforeStart,
      afterLine: change.afterStart,
      removed: beforeLines.slice(change.beforeStart, change.beforeEnd),
      added: afterLines.slice(change.afterStart, change.afterEnd),
      above: afterLines.slice(aboveStart, change.afterStart),
      below: afterLines.slice(change.afterEnd, belowEnd),
      // Anchored to the file's ends only when no other hunk lies between (undoing that one would move it).
      atStart: index === 0 && aboveStart === 0,
      atEnd: index === changes.length - 1 && belowEnd === afterLines.length,
    };
  });
}

/** Characters a hunk carries (what it costs to keep it in an event). */
export function hunkSize(hunk: Hunk): number {
  let size = 0;
  for (const lines of [hunk.removed, hunk.added, hunk.above, hunk.below]) for (const line of lines) size += line.length;
  return size;
}

/** Which of a hunk's versions to look for: the agent's lines, or the earlier ones put back. */
export type HunkSide = 'added' | 'removed';

export interface PlacementRequest {
  hunk: Hunk;
  side: HunkSide;
  /** Where (0-based line) it is expected: the nearest match wins. */
  expected: number;
}

/** How many matches of one hunk are tried when nearer hunks took the first ones. */
const MAX_CANDIDATES = 8;

/**
 * Where each requested hunk is now (the 0-based line its `side` starts at), or undefined where
 * it is not found as left. Hunks are placed together: when two could claim the same lines, the
 * one whose match is nearer where it was expected gets them, and the other tries its next match.
 * Matches are looked for lazily, outwards from where each hunk is expected: a file whose hunks
 * are where they were costs one comparison of each hunk's lines.
 */
export function placeHunks(lines: readonly string[], requests: readonly PlacementRequest[]): Array<number | undefined> {
  const searches = requests.map((request) => {
    const found = matches(lines, request.hunk, request.side, request.expected);
    return { request, found, next: found.next(), tried: 1 };
  });
  const placed: Array<number | undefined> = requests.map(() => undefined);
  const taken: Array<{ start: number; end: number }> = [];
  const distance = (index: number) => Math.abs(searches[index]!.next.value! - requests[index]!.expected);
  for (;;) {
    // The nearest match still open, of any hunk (ties: the earlier hunk).
    let best: number | undefined;
    for (let index = 0; index < searches.length; index++) {
      if (placed[index] !== undefined || searches[index]!.next.done) continue;
      if (best === undefined || distance(index) < distance(best)) best = index;
    }
    if (best === undefined) return placed;
    const search = searches[best]!;
    const at = search.next.value!;
    const span = { start: at, end: at + search.request.hunk[search.request.side].length };
    if (taken.some((other) => overlaps(span, other))) {
      search.tried++;
      search.next = search.tried <= MAX_CANDIDATES ? search.found.next() : { done: true, value: undefined };
      continue;
    }
    placed[best] = at;
    taken.push(span);
  }
}

/** Two hunks' lines overlap (a hunk of no lines is a point between two lines). */
function overlaps(a: { start: number; end: number }, b: { start: number; end: number }): boolean {
  if (a.start === a.end && b.start === b.end) return a.start === b.start;
  if (a.start === a.end) return a.start > b.start && a.start < b.end;
  if (b.start === b.end) return b.start > a.start && b.start < a.end;
  return a.start < b.end && b.start < a.end;
}

/** Lines where the hunk's `side`, with the unchanged lines around it, starts: the nearest to `expected` first. */
function* matches(lines: readonly string[], hunk: Hunk, side: HunkSide, expected: number): Generator<number, void> {
  const body = hunk[side];
  const window = [...hunk.above, ...body, ...hunk.below];
  // With a full context's worth of unchanged lines around it, a hunk is told apart by them even
  // after lines were added at the top or end of the file; with less, the file's ends pin it.
  const pinned = hunk.above.length + hunk.below.length < CONTEXT_LINES;
  const fits = (at: number): boolean => {
    const start = at - hunk.above.length;
    const end = at + body.length + hunk.below.length;
    if (start < 0 || end > lines.length) return false;
    if (pinned && hunk.atStart && start !== 0) return false;
    if (pinned && hunk.atEnd && end !== lines.length) return false;
    for (let index = 0; index < window.length; index++) if (lines[start + index] !== window[index]) return false;
    return true;
  };
  const last = lines.length - body.length;
  for (let distance = 0; ; distance++) {
    const below = expected + distance;
    const above = expected - distance;
    if (below > last && above < 0) return;
    if (below >= 0 && below <= last && fits(below)) yield below;
    if (distance > 0 && above >= 0 && above <= last && fits(above)) yield above;
  }
}

/** One replacement of lines: `count` lines from `at` become `lines`. */
export interface LineReplacement {
  at: number;
  count: number;
  lines: readonly string[];
}

/**
 * The text with the replacements made (they must not overlap). Untouched lines keep their own
 * line breaks; new lines get the text's (its first break, else \n).
 */
export function replaceLines(text: string, replacements: readonly LineReplacement[]): string {
  const lines = splitLines(text);
  const breaks = text.match(/\r\n|\r|\n/g) ?? [];
  const eol = breaks[0] ?? '\n';
  // Each line with the break after it (none after the last).
  const items: Array<{ line: string; after: string | undefined }> = lines.map((line, index) => ({
    line,
    after: breaks[index],
  }));
  for (const replacement of [...replacements].sort((a, b) => b.at - a.at))
    items.splice(
      replacement.at,
      replacement.count,
      ...replacement.lines.map((line) => ({ line, after: eol as string | undefined })),
    );
  let result = '';
  items.forEach((item, index) => {
    result += item.line;
    if (index < items.length - 1) result += item.after ?? eol;
  });
  return result;
}

/** The smallest single replacement that turns `before` into `after` (never splitting \r\n or a surrogate pair). */
export function minimalEdit(before: string, after: string): { start: number; end: number; text: string } {
  let start = 0;
  const shorter = Math.min(before.length, after.length);
  while (start < shorter && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  while (start > 0 && (splitsPair(before, start) || splitsPair(after, start))) start--;
  let suffix = 0;
  while (
    suffix < shorter - start &&
    before.charCodeAt(before.length - 1 - suffix) === after.charCodeAt(after.length - 1 - suffix)
  )
    suffix++;
  while (suffix > 0 && (splitsPair(before, before.length - suffix) || splitsPair(after, after.length - suffix)))
    suffix--;
  return { start, end: before.length - suffix, text: after.slice(start, after.length - suffix) };
}

/** Whether `offset` falls inside \r\n or a UTF-16 surrogate pair of `text`. */
function splitsPair(text: string, offset: number): boolean {
  const previous = text.charCodeAt(offset - 1);
  const next = text.charCodeAt(offset);
  return (
    (previous === 13 && next === 10) || (previous >= 0xd800 && previous <= 0xdbff && next >= 0xdc00 && next <= 0xdfff)
  );
}
