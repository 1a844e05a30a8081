/**
 * Where the code spans are in a block's inline text, by CommonMark's rule: a backtick run opens
 * a span that the next run of exactly the same length closes (over line breaks too); a
 * backslash-escaped backtick opens nothing; raw HTML tags, comments and autolinks that start
 * first hide the backticks inside them. Linear in the text: closers are found through
 * per-length lists walked forward only, and the ends of comments and the like are searched once.
 */

/** [start, end) offsets; lists of them are sorted and do not overlap. */
export type Range = [number, number];

/** How far an HTML tag or autolink is looked for from its `<`. */
const TAG_WINDOW = 65_536;
const OPEN_TAG = /<[A-Za-z][A-Za-z0-9-]*(?:\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))?)*\s*\/?>/y;
const CLOSE_TAG = /<\/[A-Za-z][A-Za-z0-9-]*\s*>/y;
// eslint-disable-next-line no-control-regex -- CommonMark: no control characters in an autolink
const AUTOLINK = /<[A-Za-z][A-Za-z0-9.+-]{1,31}:[^<>\x00-\x20]*>/y;
const EMAIL_AUTOLINK =
  /<[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*>/y;
/** Inline tags whose content is code. */
const CODE_TAG = /^<(code|pre|kbd|samp|tt)\b/i;

interface Run {
  start: number;
  length: number;
}

/** Maximal backtick runs, and for each length the indexes of the runs of that length. */
function backtickRuns(text: string): { runs: Run[]; byLength: Map<number, number[]> } {
  const runs: Run[] = [];
  const byLength = new Map<number, number[]>();
  let at = text.indexOf('`');
  while (at >= 0) {
    let end = at;
    while (end < text.length && text.charCodeAt(end) === 96) end++;
    const list = byLength.get(end - at) ?? [];
    list.push(runs.length);
    byLength.set(end - at, list);
    runs.push({ start: at, length: end - at });
    at = text.indexOf('`', end);
  }
  return { runs, byLength };
}

/** Finds, for a growing position, the first run of a length that starts at or after it. */
function closerFinder(text: string): (length: number, from: number) => number {
  const { runs, byLength } = backtickRuns(text);
  const cursor = new Map<number, number>();
  return (length, from) => {
    const list = byLength.get(length);
    if (!list) return -1;
    let position = cursor.get(length) ?? 0;
    while (position < list.length && runs[list[position]!]!.start < from) position++;
    cursor.set(length, position);
    return position < list.length ? runs[list[position]!]!.start : -1;
  };
}

export function codeSpanRanges(text: string): Range[] {
  const out: Range[] = [];
  if (!text.includes('`') && !text.includes('<')) return out;
  const nextCloser = closerFinder(text);
  const ends = new Map<string, number>();
  let lower: string | undefined;
  /** The first `needle` at or after `from`, searched for again only when passed. */
  const nextIndex = (needle: string, from: number) => {
    const known = ends.get(needle);
    if (known !== undefined && (known === -1 || known >= from)) return known;
    // ASCII only: a lowercase that keeps every offset.
    lower ??= text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
    const found = lower.indexOf(needle, from);
    ends.set(needle, found);
    return found;
  };
  let at = 0;
  while (at < text.length) {
    const code = text.charCodeAt(at);
    if (code === 92) {
      at += 2;
    } else if (code === 96) {
      let end = at;
      while (end < text.length && text.charCodeAt(end) === 96) end++;
      const closer = nextCloser(end - at, end);
      if (closer < 0) {
        at = end;
      } else {
        out.push([at, closer + end - at]);
        at = closer + end - at;
      }
    } else if (code === 60) {
      const skip = htmlAt(text, at, nextIndex);
      if (skip.code) {
        // The element's content is code to a reader, but its backticks still pair as CommonMark
        // says: the scan goes on inside it.
        const close = nextIndex(`</${skip.code}`, skip.end);
        out.push([at, close < 0 ? text.length : close]);
      }
      at = skip.end;
    } else {
      at++;
    }
  }
  return merged(out);
}

/** Sorted, overlaps joined. */
function merged(ranges: Range[]): Range[] {
  ranges.sort((a, b) => a[0] - b[0]);
  const out: Range[] = [];
  for (const range of ranges) {
    const last = out.at(-1);
    if (last && range[0] <= last[1]) last[1] = Math.max(last[1], range[1]);
    else out.push([range[0], range[1]]);
  }
  return out;
}

/** What starts at a `<`: how far it reaches, and the tag name when its content is code. */
function htmlAt(
  text: string,
  at: number,
  nextIndex: (needle: string, from: number) => number,
): { end: number; code?: string } {
  const ahead = (prefix: string) => text.startsWith(prefix, at);
  const through = (needle: string, from: number) => {
    const found = nextIndex(needle, from);
    return found < 0 ? at + 1 : found + needle.length;
  };
  if (ahead('<!-->')) return { end: at + 5 };
  if (ahead('<!--->')) return { end: at + 6 };
  if (ahead('<!--')) return { end: through('-->', at + 4) };
  if (ahead('<?')) return { end: through('?>', at + 2) };
  if (ahead('<![CDATA[')) return { end: through(']]>', at + 9) };
  if (ahead('<!') && /[A-Za-z]/.test(text[at + 2] ?? '')) return { end: through('>', at + 2) };
  const window = text.slice(at, at + TAG_WINDOW);
  for (const pattern of [OPEN_TAG, CLOSE_TAG, AUTOLINK, EMAIL_AUTOLINK]) {
    pattern.lastIndex = 0;
    const match = pattern.exec(window);
    if (!match) continue;
    const codeTag = pattern === OPEN_TAG ? CODE_TAG.exec(match[0])?.[1]?.toLowerCase() : undefined;
    return { end: at + match[0].length, ...(codeTag ? { code: codeTag } : {}) };
  }
  return { end: at + 1 };
}

/**
 * Backtick pairs by length over raw text, paragraph by paragraph (a blank line ends one), with
 * no regard to HTML or block structure, once ignoring backslashes and once honouring them: a
 * cruder reading than CommonMark's that errs toward code, consulted alongside it.
 */
export function looseCodeSpanRanges(text: string): Range[] {
  const blankLines: number[] = [];
  for (const match of text.matchAll(/\n[ \t]*\n/g)) blankLines.push(match.index);
  return merged([...pairs(text, blankLines, false), ...pairs(text, blankLines, true)]);
}

function pairs(text: string, blankLines: number[], escapes: boolean): Range[] {
  const out: Range[] = [];
  const nextCloser = closerFinder(text);
  let blank = 0;
  for (let at = text.indexOf('`'); at >= 0;) {
    let end = at;
    while (end < text.length && text.charCodeAt(end) === 96) end++;
    let start = at;
    if (escapes && isEscaped(text, at)) start++;
    while (blank < blankLines.length && blankLines[blank]! < end) blank++;
    const paragraphEnd = blank < blankLines.length ? blankLines[blank]! : text.length;
    const closer = start < end ? nextCloser(end - start, end) : -1;
    if (closer >= 0 && closer < paragraphEnd) {
      out.push([start, closer + end - start]);
      at = text.indexOf('`', closer + end - start);
    } else {
      at = text.indexOf('`', end);
    }
  }
  return out;
}

/** An odd number of backslashes before `at`. */
function isEscaped(text: string, at: number): boolean {
  let count = 0;
  while (at - count - 1 >= 0 && text.charCodeAt(at - count - 1) === 92) count++;
  return count % 2 === 1;
}

/** Whether `at` is inside one of the sorted, non-overlapping ranges. */
export function inside(ranges: readonly Range[], at: number): boolean {
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const [start, end] = ranges[middle]!;
    if (at < start) high = middle - 1;
    else if (at >= end) low = middle + 1;
    else return true;
  }
  return false;
}
