/**
 * Where one edit's old text is in a file, found by a ladder of rungs tried in order: exact;
 * ignoring trailing whitespace; ignoring indentation (the new text then re-indented to the
 * file's style); read_file's line-number prefixes removed when they are the lines' real numbers.
 * A rung is used only when it finds exactly one place (or, with replaceAll, every place); a
 * rung that finds several stops the ladder, so an ambiguous edit is refused, never guessed.
 * Nothing is fuzzier than whitespace and prefixes: every visible character must match.
 */
import {
  hasLineNumberPrefix,
  modelLines,
  splitLines,
  stripLineNumbers,
  withoutLineNumber,
  withoutTrailingWhitespace,
  type FileLines,
} from './file-lines';
import { reindent } from './reindent';

export type Rung = 'exact' | 'trailing-whitespace' | 'indentation' | 'line-numbers';

/** Replace text[start, end) with `text`. */
export interface Replacement {
  start: number;
  end: number;
  text: string;
}

export type LadderResult =
  | { kind: 'found'; rung: Rung; replacements: Replacement[]; detail: string }
  | { kind: 'ambiguous'; rung: Rung; count: number; lines: number[] }
  /** Refused for a reason of its own; `explain`: also show the closest lines. */
  | { kind: 'refused'; reason: string; explain: boolean }
  | { kind: 'none' };

export interface LadderEdit {
  /** Old and new text with `\n` line breaks. */
  oldText: string;
  newText: string;
  replaceAll: boolean;
  /**
   * How many of the text's first lines have the numbers read_file showed the model: prefixes
   * on lines past these may be numbers of an older version, and are not trusted to place the
   * edit. Undefined: all of them.
   */
  knownLines?: number;
}

/** Why a numbered edit is refused when its numbers may belong to an older version of the file. */
export const MOVED_NUMBERS =
  "oldText carries read_file's line-number prefixes, but the file has changed since the read_file that showed those numbers " +
  '(an earlier edit that added or removed lines, or a change made outside this conversation, such as a formatter), so they may ' +
  'now be the numbers of other lines. Nothing was changed. Call read_file again and quote the lines as it shows them now, or ' +
  'leave the prefixes out of oldText.';

/** The file's lines, split and normalised only when a line-wise rung needs them. */
export class LineIndex {
  private split: FileLines | undefined;
  private ended: Array<string | undefined> = [];
  private trimmed: Array<string | undefined> = [];

  constructor(readonly text: string) {}

  get file(): FileLines {
    return (this.split ??= splitLines(this.text));
  }

  /** Line `index` without trailing whitespace. */
  endTrimmed(index: number): string {
    return (this.ended[index] ??= withoutTrailingWhitespace(this.file.lines[index]!));
  }

  /** Line `index` without leading or trailing whitespace. */
  bothTrimmed(index: number): string {
    return (this.trimmed[index] ??= this.file.lines[index]!.trim());
  }

  /** 1-based line number of an offset. */
  lineOf(offset: number): number {
    const starts = this.file.starts;
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  }
}

const MAX_LISTED_PLACES = 5;

export function findEdit(index: LineIndex, lineEnding: '\n' | '\r\n', edit: LadderEdit): LadderResult {
  const native = (text: string) => (lineEnding === '\r\n' ? text.replace(/\n/g, '\r\n') : text);
  const exact = findExact(index, native(edit.oldText), native(edit.newText), edit.replaceAll);
  if (exact.kind !== 'none') return exact;
  const old = modelLines(edit.oldText);
  const replacement = modelLines(edit.newText);
  const rungs = [
    () => findIgnoringTrailing(index, old, native(edit.newText), edit.replaceAll),
    () => findIgnoringIndentation(index, old, replacement, lineEnding, edit.replaceAll),
    () => findByLineNumbers(index, old, replacement, lineEnding, edit.knownLines ?? Infinity),
  ];
  for (const rung of rungs) {
    const result = rung();
    if (result.kind !== 'none') return result;
  }
  return { kind: 'none' };
}

function findExact(index: LineIndex, oldText: string, newText: string, replaceAll: boolean): LadderResult {
  const text = index.text;
  const first = text.indexOf(oldText);
  if (first < 0) return { kind: 'none' };
  const starts = [first];
  for (
    let at = text.indexOf(oldText, first + oldText.length);
    at >= 0;
    at = text.indexOf(oldText, at + oldText.length)
  ) {
    starts.push(at);
    if (!replaceAll) break;
  }
  if (!replaceAll && starts.length > 1) {
    let count = 0;
    for (let at = text.indexOf(oldText); at >= 0; at = text.indexOf(oldText, at + oldText.length)) count++;
    const lines: number[] = [];
    for (let at = first; at >= 0 && lines.length < MAX_LISTED_PLACES; at = text.indexOf(oldText, at + oldText.length))
      lines.push(index.lineOf(at));
    return { kind: 'ambiguous', rung: 'exact', count, lines };
  }
  const replacements = starts.map((start) => ({ start, end: start + oldText.length, text: newText }));
  return { kind: 'found', rung: 'exact', replacements, detail: '' };
}

type Block = ReturnType<typeof modelLines>;

/** First lines of the places a block could be, trying only file lines like its anchor line. */
function* candidates(index: LineIndex, count: number, anchor: number, likeAnchor: (line: number) => boolean) {
  const total = index.file.lines.length;
  for (let line = anchor; line <= total - count + anchor; line++) if (likeAnchor(line)) yield line - anchor;
}

function ambiguityOrFound(
  rung: Rung,
  found: Array<{ first: number; replacement: Replacement }>,
  replaceAll: boolean,
  detail: string,
): LadderResult {
  if (found.length === 0) return { kind: 'none' };
  if (found.length > 1 && !replaceAll)
    return {
      kind: 'ambiguous',
      rung,
      count: found.length,
      lines: found.slice(0, MAX_LISTED_PLACES).map((place) => place.first + 1),
    };
  // With replaceAll, places that overlap an earlier one are left out.
  const replacements: Replacement[] = [];
  for (const { replacement } of found)
    if (replacements.length === 0 || replacement.start >= replacements.at(-1)!.end) replacements.push(replacement);
  return { kind: 'found', rung, replacements, detail };
}

/**
 * Exact but for whitespace at the ends of lines. As in an exact match, the first line may be
 * the end of a file line and the last line the start of one; but where oldText had whitespace
 * at a line's end, the file's line must end there too (that whitespace marked where it ends).
 */
function findIgnoringTrailing(index: LineIndex, old: Block, newText: string, replaceAll: boolean): LadderResult {
  const wanted = old.lines.map(withoutTrailingWhitespace);
  const count = wanted.length;
  const last = count - 1;
  const lastEndsLine = old.endsWithBreak || wanted[last] !== old.lines[last];
  if (wanted.every((line) => line === '') || (count === 1 && !lastEndsLine)) return { kind: 'none' };
  const { starts, ends, nexts } = index.file;
  const fits = (first: number): Replacement | undefined => {
    for (let offset = 0; offset < count; offset++) {
      const line = index.endTrimmed(first + offset);
      const part = wanted[offset]!;
      const ok =
        offset === 0 ? line.endsWith(part) : offset < last || lastEndsLine ? line === part : line.startsWith(part);
      if (!ok) return undefined;
    }
    const start = starts[first]! + index.endTrimmed(first).length - wanted[0]!.length;
    const lastLine = first + last;
    const end = old.endsWithBreak
      ? nexts[lastLine]!
      : lastEndsLine
        ? ends[lastLine]!
        : starts[lastLine]! + wanted[last]!.length;
    return { start, end, text: newText };
  };
  // Anchor on a line that must match whole when there is one: cheap to test.
  const anchor = count > 2 || (count === 2 && lastEndsLine) ? 1 : 0;
  const likeAnchor =
    anchor === 1
      ? (line: number) => index.file.lines[line]!.startsWith(wanted[1]!) && index.endTrimmed(line) === wanted[1]
      : (line: number) => index.endTrimmed(line).endsWith(wanted[0]!);
  const found: Array<{ first: number; replacement: Replacement }> = [];
  for (const first of candidates(index, count, anchor, likeAnchor)) {
    const replacement = fits(first);
    if (replacement) found.push({ first, replacement });
  }
  return ambiguityOrFound('trailing-whitespace', found, replaceAll, 'matched ignoring trailing whitespace');
}

/** Whole lines equal but for leading and trailing whitespace, with the same nesting. */
function findIgnoringIndentation(
  index: LineIndex,
  old: Block,
  replacement: Block,
  lineEnding: '\n' | '\r\n',
  replaceAll: boolean,
): LadderResult {
  const wanted = old.lines.map((line) => line.trim());
  const count = wanted.length;
  const anchor = wanted.findIndex((line) => line !== '');
  if (anchor < 0) return { kind: 'none' };
  const { starts, ends, nexts, lines } = index.file;
  const found: Array<{ first: number; replacement: Replacement }> = [];
  let style = '';
  let structureDiffers = false;
  for (const first of candidates(
    index,
    count,
    anchor,
    (line) => lines[line]!.includes(wanted[anchor]!) && index.bothTrimmed(line) === wanted[anchor],
  )) {
    let same = true;
    for (let offset = 0; offset < count && same; offset++) same = index.bothTrimmed(first + offset) === wanted[offset];
    if (!same) continue;
    const fileLines = lines.slice(first, first + count);
    const shaped = reindent(old.lines, fileLines, replacement.lines, lines);
    if (!shaped) {
      structureDiffers = true;
      continue;
    }
    style = shaped.style;
    const lastLine = first + count - 1;
    const text = shaped.lines.join(lineEnding) + (replacement.endsWithBreak ? lineEnding : '');
    const end = old.endsWithBreak ? nexts[lastLine]! : ends[lastLine]!;
    found.push({ first, replacement: { start: starts[first]!, end, text } });
  }
  if (found.length === 0 && structureDiffers)
    return {
      kind: 'refused',
      reason:
        "oldText matches lines whose nesting differs from oldText's (ignoring indentation), so the new indentation cannot be worked out.",
      explain: true,
    };
  return ambiguityOrFound(
    'indentation',
    found,
    replaceAll,
    `matched ignoring indentation; newText re-indented to the file's ${style}`,
  );
}

/** read_file's prefixes copied into oldText: used only when they are the lines' real numbers. */
function findByLineNumbers(
  index: LineIndex,
  old: Block,
  replacement: Block,
  lineEnding: '\n' | '\r\n',
  knownLines: number,
): LadderResult {
  const stripped = stripLineNumbers(old.lines);
  if (!stripped) return { kind: 'none' };
  const first = stripped.first - 1;
  const count = stripped.lines.length;
  if (first + count > knownLines) return { kind: 'refused', reason: MOVED_NUMBERS, explain: false };
  const { starts, ends, nexts, lines } = index.file;
  if (first < 0 || first + count > lines.length) return { kind: 'none' };
  for (let offset = 0; offset < count; offset++)
    if (index.endTrimmed(first + offset) !== withoutTrailingWhitespace(stripped.lines[offset]!))
      return { kind: 'none' };
  const numbered = replacement.lines.filter((line) => line.trim() !== '');
  const prefixed = numbered.filter(hasLineNumberPrefix).length;
  if (prefixed > 0 && prefixed < numbered.length)
    return {
      kind: 'refused',
      reason: 'newText has line-number prefixes on some lines only; leave out the prefixes in oldText and newText.',
      explain: false,
    };
  const newLines = prefixed > 0 ? replacement.lines.map(withoutLineNumber) : replacement.lines;
  const lastLine = first + count - 1;
  const text = newLines.join(lineEnding) + (replacement.endsWithBreak ? lineEnding : '');
  return {
    kind: 'found',
    rung: 'line-numbers',
    replacements: [{ start: starts[first]!, end: old.endsWithBreak ? nexts[lastLine]! : ends[lastLine]!, text }],
    detail: `matched after removing read_file's line-number prefixes (lines ${first + 1}–${lastLine + 1}); leave them out next time`,
  };
}
