/**
 * What an edit_file refusal tells the model when oldText is nowhere in the file: the closest
 * real lines, numbered as read_file numbers them, and line by line what differs (trailing
 * whitespace, indentation, a line missing or extra, a changed word or a look-alike character),
 * so that the next try can succeed.
 */
import type { LineIndex } from './edit-ladder';
import { modelLines, stripLineNumbers } from './file-lines';
import { leadingWhitespace } from './reindent';

const MAX_OLD_LINES = 200;
const MAX_SHOWN_LINES = 30;
const MAX_NOTES = 8;
const SIMILARITY_SCAN_LINES = 100_000;

type Step = { kind: 'same'; old: number; file: number } | { kind: 'old'; old: number } | { kind: 'file'; file: number };

export function explainMiss(index: LineIndex, oldText: string): string {
  let old = modelLines(oldText).lines.slice(0, MAX_OLD_LINES);
  const notes: string[] = [];
  const numbered = stripLineNumbers(old);
  if (numbered) {
    old = numbered.lines;
    notes.push(
      `oldText carries line-number prefixes, but its lines are not lines ${numbered.first}–${numbered.first + old.length - 1} of the file as they are now; leave the prefixes out`,
    );
  }
  const start = closestStart(index, old);
  if (start === undefined)
    return 'None of its lines is in the file: read the file again (it may have changed) and copy the text exactly.';
  const fileLines = index.file.lines;
  const windowStart = Math.max(0, start - 3);
  const windowEnd = Math.min(fileLines.length, start + old.length + 3);
  const steps = trimFileEdges(
    align(old, fileLines.slice(windowStart, windowEnd), windowStart),
    Math.max(0, start),
    Math.min(old.length, fileLines.length - Math.max(0, start)),
  );
  notes.push(...describe(steps, old, fileLines));
  const usedFile = steps.flatMap((step) => (step.kind === 'old' ? [] : [step.file]));
  const from = Math.max(0, Math.min(...usedFile) - 1);
  const to = Math.min(fileLines.length - 1, Math.max(...usedFile) + 1, from + MAX_SHOWN_LINES - 1);
  const width = String(to + 1).length;
  const shown = [];
  for (let line = from; line <= to; line++) shown.push(`${String(line + 1).padStart(width)}\t${fileLines[line]}`);
  const shownNotes = notes.slice(0, MAX_NOTES).map((note) => `- ${note}`);
  if (notes.length > MAX_NOTES) shownNotes.push(`- … ${notes.length - MAX_NOTES} more differences`);
  return [
    `The closest lines in the file are ${from + 1}–${to + 1}:`,
    ...shown,
    'What differs from oldText:',
    ...(shownNotes.length ? shownNotes : ['- (nothing line by line: check line breaks at the start or end)']),
    'Copy the lines as they are in the file (without the line-number prefixes) and try again.',
  ].join('\n');
}

/** Where oldText's first line would be if it were in the file: by lines that are there. */
function closestStart(index: LineIndex, old: readonly string[]): number | undefined {
  const positions = new Map<string, number[]>();
  const long = old.some((line) => line.trim().length >= 3);
  for (const [at, line] of old.entries()) {
    const key = line.trim();
    if (key === '' || (long && key.length < 3)) continue;
    positions.set(key, [...(positions.get(key) ?? []), at]);
  }
  const votes = new Map<number, number>();
  const lines = index.file.lines;
  for (let line = 0; line < lines.length; line++) {
    const at = positions.get(index.bothTrimmed(line));
    if (at)
      for (const position of at)
        votes.set(line - position, (votes.get(line - position) ?? 0) + index.bothTrimmed(line).length);
  }
  let best: number | undefined;
  for (const [start, score] of votes) if (best === undefined || score > votes.get(best)!) best = start;
  if (best !== undefined) return best;
  return bySimilarity(index, old);
}

/** No line is there as it is: the file line most like oldText's longest line, if any is alike. */
function bySimilarity(index: LineIndex, old: readonly string[]): number | undefined {
  const longest = old.reduce((a, b) => (b.trim().length > a.trim().length ? b : a), '');
  const wanted = words(longest);
  if (wanted.size === 0) return undefined;
  let best: { line: number; score: number } | undefined;
  const lines = index.file.lines;
  for (let line = 0; line < Math.min(lines.length, SIMILARITY_SCAN_LINES); line++) {
    const have = words(lines[line]!);
    let common = 0;
    for (const word of have) if (wanted.has(word)) common++;
    const score = (2 * common) / (have.size + wanted.size);
    if (score >= 0.5 && (!best || score > best.score)) best = { line, score };
  }
  return best && best.line - old.indexOf(longest);
}

function words(line: string): Set<string> {
  return new Set(line.split(/[^\p{L}\p{N}_]+/u).filter(Boolean));
}

/** A longest-common-subsequence alignment of oldText's lines with file lines, by visible text. */
function align(old: readonly string[], window: readonly string[], offset: number): Step[] {
  const a = old.map((line) => line.trim());
  const b = window.map((line) => line.trim());
  const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      table[i]![j] = a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
  const steps: Step[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) steps.push({ kind: 'same', old: i++, file: offset + j++ });
    else if (j < b.length && (i === a.length || table[i]![j + 1]! >= table[i + 1]![j]!))
      steps.push({ kind: 'file', file: offset + j++ });
    else steps.push({ kind: 'old', old: i++ });
  }
  return steps;
}

/**
 * File lines before the first and after the last line of oldText are context, not differences:
 * beside a changed first or last line only as many file lines are kept as it has changed lines
 * (the nearest ones). With no line in common, oldText is set against the lines where it would be.
 */
function trimFileEdges(steps: Step[], start: number, count: number): Step[] {
  const firstSame = steps.findIndex((step) => step.kind === 'same');
  if (firstSame < 0) {
    const files: Step[] = [];
    for (let line = start; line < start + count; line++) files.push({ kind: 'file', file: line });
    return [...files, ...steps.filter((step) => step.kind === 'old')];
  }
  const lastSame = steps.length - 1 - [...steps].reverse().findIndex((step) => step.kind === 'same');
  const edge = (run: Step[], nearestLast: boolean): Step[] => {
    const olds = run.filter((step) => step.kind === 'old');
    const files = run.filter((step) => step.kind === 'file');
    const kept = nearestLast ? files.slice(Math.max(0, files.length - olds.length)) : files.slice(0, olds.length);
    return [...kept, ...olds];
  };
  return [
    ...edge(steps.slice(0, firstSame), true),
    ...steps.slice(firstSame, lastSame + 1),
    ...edge(steps.slice(lastSame + 1), false),
  ];
}

function describe(steps: readonly Step[], old: readonly string[], fileLines: readonly string[]): string[] {
  const notes: string[] = [];
  for (let at = 0; at < steps.length; at++) {
    const step = steps[at]!;
    if (step.kind === 'same') {
      const note = whitespaceNote(old[step.old]!, fileLines[step.file]!);
      if (note) notes.push(`line ${step.file + 1}: ${note}`);
      continue;
    }
    // A run of old-only lines beside a run of file-only lines: lines that were changed.
    const olds: number[] = [];
    const files: number[] = [];
    for (; at < steps.length && steps[at]!.kind !== 'same'; at++) {
      const inRun = steps[at]!;
      if (inRun.kind === 'old') olds.push(inRun.old);
      else if (inRun.kind === 'file') files.push(inRun.file);
    }
    at--;
    const pairs = Math.min(olds.length, files.length);
    for (let pair = 0; pair < pairs; pair++)
      notes.push(`line ${files[pair]! + 1}: ${changeNote(old[olds[pair]!]!, fileLines[files[pair]!]!)}`);
    const before = steps.slice(0, at + 1).findLast((entry) => entry.kind !== 'old');
    const after = before ? ` (after line ${before.file + 1})` : '';
    for (const missing of olds.slice(pairs))
      notes.push(`oldText's line ${quote(old[missing]!)} is not in the file here${after}`);
    for (const extra of files.slice(pairs))
      notes.push(`line ${extra + 1} ${quote(fileLines[extra]!)} is in the file but not in oldText`);
  }
  return notes;
}

function whitespaceNote(oldLine: string, fileLine: string): string | undefined {
  if (oldLine === fileLine) return undefined;
  const parts: string[] = [];
  const oldIndent = leadingWhitespace(oldLine);
  const fileIndent = leadingWhitespace(fileLine);
  if (oldIndent !== fileIndent)
    parts.push(`indentation: the file has ${indentWords(fileIndent)}, oldText ${indentWords(oldIndent)}`);
  const oldTrailing = /\s*$/.exec(oldLine)![0];
  const fileTrailing = /\s*$/.exec(fileLine)![0];
  if (oldTrailing !== fileTrailing)
    parts.push(
      `trailing whitespace: the file has ${fileTrailing ? JSON.stringify(fileTrailing) : 'none'}, oldText ${oldTrailing ? JSON.stringify(oldTrailing) : 'none'}`,
    );
  return parts.join('; ') || undefined;
}

function indentWords(indent: string): string {
  if (indent === '') return 'no indentation';
  const tabs = [...indent].filter((character) => character === '\t').length;
  const spaces = indent.length - tabs;
  const named = [
    tabs ? `${tabs} tab${tabs > 1 ? 's' : ''}` : '',
    spaces ? `${spaces} space${spaces > 1 ? 's' : ''}` : '',
  ];
  return named.filter(Boolean).join(' and ');
}

/** The part of a line that differs, by words, and a look-alike character when that is all. */
function changeNote(oldLine: string, fileLine: string): string {
  const a = tokens(oldLine.trim());
  const whole = tokens(fileLine.trim());
  // oldText may start part-way into the line: what comes before is context, not a difference
  // (unless it is the only difference).
  const skipped = whole.slice(partStart(a, whole));
  const b = skipped.join('') === a.join('') ? whole : skipped;
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  // Something only one side has is shown with a neighbouring word, so both sides say something.
  if ((head === a.length - tail || head === b.length - tail) && (head > 0 || tail > 0)) {
    if (head > 0) head--;
    else tail--;
  }
  const oldPart = a.slice(head, a.length - tail).join('');
  const filePart = b.slice(head, b.length - tail).join('');
  const lookAlike = lookAlikeNote(oldPart, filePart);
  if (!oldPart) return `the file has ${quote(filePart)} that oldText lacks${lookAlike}`;
  if (!filePart) return `oldText has ${quote(oldPart)} that the file lacks`;
  return `the file has ${quote(filePart)} where oldText has ${quote(oldPart)}${lookAlike}`;
}

function lookAlikeNote(oldPart: string, filePart: string): string {
  const a = [...oldPart];
  const b = [...filePart];
  if (a.length !== b.length) return '';
  const differing = a.flatMap((character, at) => (character === b[at] ? [] : [[b[at]!, character] as const]));
  if (differing.length === 0 || differing.length > 3) return '';
  // Only characters that can pass for others: an ASCII letter for an ASCII letter is just a typo.
  if (differing.every(([file, wanted]) => /^[\x20-\x7e]$/.test(file) && /^[\x20-\x7e]$/.test(wanted))) return '';
  const code = (character: string) => `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  return ` (different characters: ${differing.map(([file, wanted]) => `${code(file)} in the file, ${code(wanted)} in oldText`).join('; ')})`;
}

/** Where in the file line's words oldText's line most likely starts: the longest run in common. */
function partStart(a: readonly string[], b: readonly string[]): number {
  let best = 0;
  let bestRun = 0;
  for (let start = 0; start < b.length; start++) {
    let run = 0;
    while (run < a.length && start + run < b.length && a[run] === b[start + run]) run++;
    if (run > bestRun) [best, bestRun] = [start, run];
  }
  return best;
}

function tokens(line: string): string[] {
  return line.split(/([\p{L}\p{N}_]+|\s+)/u).filter(Boolean);
}

function quote(text: string): string {
  const shown = text.length > 80 ? `${text.slice(0, 77)}…` : text;
  return JSON.stringify(shown);
}
