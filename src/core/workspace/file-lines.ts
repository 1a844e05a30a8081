/**
 * A text's lines with where each starts and ends, for the edit ladder's line-wise rungs and
 * its refusals. A line's content excludes its line break (`\n` or `\r\n`); `\r` alone is kept.
 */
export interface FileLines {
  /** Line contents, without their breaks. */
  readonly lines: string[];
  /** Offset of each line's first character. */
  readonly starts: number[];
  /** Offset just past each line's content (before its break). */
  readonly ends: number[];
  /** Offset just past each line's break (the next line's start; the text's length for the last). */
  readonly nexts: number[];
}

export function splitLines(text: string): FileLines {
  const lines: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  const nexts: number[] = [];
  let start = 0;
  for (;;) {
    const newline = text.indexOf('\n', start);
    const breakAt = newline < 0 ? text.length : newline;
    const end = newline > start && text.charCodeAt(newline - 1) === 13 ? newline - 1 : breakAt;
    lines.push(text.slice(start, end));
    starts.push(start);
    ends.push(end);
    nexts.push(newline < 0 ? text.length : newline + 1);
    if (newline < 0) return { lines, starts, ends, nexts };
    start = newline + 1;
  }
}

/** The form read_file shows a line in: its number, a tab, the line. */
const PREFIX = /^ *(\d+)(?:\t|$)/;

/**
 * The lines without read_file's line-number prefixes, and the first number, when every line
 * carries one and the numbers count up by one; undefined otherwise.
 */
export function stripLineNumbers(lines: readonly string[]): { lines: string[]; first: number } | undefined {
  const stripped: string[] = [];
  let first = 0;
  let tabs = 0;
  for (const [index, line] of lines.entries()) {
    const match = PREFIX.exec(line);
    if (!match) return undefined;
    if (match[0].endsWith('\t')) tabs++;
    const number = Number(match[1]);
    if (index === 0) first = number;
    else if (number !== first + index) return undefined;
    stripped.push(line.slice(match[0].length));
  }
  // Lines of bare numbers are numbers, not prefixes: a prefix is followed by a tab.
  return tabs > 0 ? { lines: stripped, first } : undefined;
}

/** Whether a line starts the way read_file's prefixes do (an empty line's may have lost its tab). */
export function hasLineNumberPrefix(line: string): boolean {
  return PREFIX.test(line);
}

/** The line without read_file's prefix. */
export function withoutLineNumber(line: string): string {
  return line.replace(PREFIX, '');
}

/** The line a model wrote, `\r\n` or `\n` alike, as lines (a final break ends the last line). */
export function modelLines(text: string): { lines: string[]; endsWithBreak: boolean } {
  const lines = text.split('\n');
  const endsWithBreak = lines.length > 1 && lines[lines.length - 1] === '';
  if (endsWithBreak) lines.pop();
  return { lines, endsWithBreak };
}

export function withoutTrailingWhitespace(line: string): string {
  return line.replace(/\s+$/, '');
}
