/**
 * A line diff (Myers' O((N+M)·D) algorithm): which runs of lines changed between two versions of
 * a text. Common leading and trailing lines are skipped first, so a typical edit of a big file
 * leaves a small middle to compare. A middle that differs in more than `maxEdits` lines is not
 * compared line by line (the cost grows with the square of that): it is one change, all of it
 * removed and added.
 *
 * Hand-written rather than the `diff` package: ~100 lines, no dependency, and the review of
 * edits (and the CLI's approval preview) need only change regions, not patches or word diffs.
 */

/** One run of changed lines: `before[beforeStart, beforeEnd)` became `after[afterStart, afterEnd)`. */
export interface LineChange {
  beforeStart: number;
  beforeEnd: number;
  afterStart: number;
  afterEnd: number;
}

/** Above this many edits, the middle is one change (Myers keeps O(D²) numbers to trace its path). */
export const DEFAULT_MAX_EDITS = 2_000;

/** Splits text into lines as editors do: at \r\n, \r or \n. A text ending in a break ends in ''. */
export function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/**
 * The changed runs, in order, separated by at least one unchanged line. Removals and additions
 * that touch are one change.
 */
export function diffLines(
  before: readonly string[],
  after: readonly string[],
  maxEdits = DEFAULT_MAX_EDITS,
): LineChange[] {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let beforeEnd = before.length;
  let afterEnd = after.length;
  while (beforeEnd > start && afterEnd > start && before[beforeEnd - 1] === after[afterEnd - 1]) {
    beforeEnd--;
    afterEnd--;
  }
  if (start === beforeEnd && start === afterEnd) return [];
  const whole = { beforeStart: start, beforeEnd, afterStart: start, afterEnd };
  if (start === beforeEnd || start === afterEnd) return [whole];
  const marks = shortestEdit(before, after, whole, maxEdits);
  return marks ? regions(marks, whole) : [whole];
}

interface EditMarks {
  /** removed[i]: before[range.beforeStart + i] is not in the after text. */
  removed: Uint8Array;
  /** added[j]: after[range.afterStart + j] is new. */
  added: Uint8Array;
}

/** Myers' greedy forward search, then a walk back along the kept frontiers; undefined past maxEdits. */
function shortestEdit(
  before: readonly string[],
  after: readonly string[],
  range: LineChange,
  maxEdits: number,
): EditMarks | undefined {
  const n = range.beforeEnd - range.beforeStart;
  const m = range.afterEnd - range.afterStart;
  const offset = n + m + 1;
  const frontier = new Int32Array(2 * offset + 1);
  // trace[d] holds frontier[-d-1 .. d+1] as it was before step d.
  const trace: Int32Array[] = [];
  for (let d = 0; d <= Math.min(n + m, maxEdits); d++) {
    trace.push(frontier.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && frontier[offset + k - 1]! < frontier[offset + k + 1]!)
          ? frontier[offset + k + 1]!
          : frontier[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && before[range.beforeStart + x] === after[range.afterStart + y]) {
        x++;
        y++;
      }
      frontier[offset + k] = x;
      if (x >= n && y >= m) return walkBack(trace, d, n, m);
    }
  }
  return undefined;
}

function walkBack(trace: readonly Int32Array[], edits: number, n: number, m: number): EditMarks {
  const marks: EditMarks = { removed: new Uint8Array(n), added: new Uint8Array(m) };
  let x = n;
  let y = m;
  for (let d = edits; d > 0; d--) {
    const previous = trace[d]!;
    // previous[i] is frontier[i - d - 1].
    const at = (k: number) => previous[k + d + 1]!;
    const k = x - y;
    const fromK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const fromX = at(fromK);
    const fromY = fromX - fromK;
    // The diagonal back to where this step's one edit ended, then the edit itself.
    while (x > fromX && y > fromY) {
      x--;
      y--;
    }
    if (fromK === k + 1) marks.added[fromY] = 1;
    else marks.removed[fromX] = 1;
    x = fromX;
    y = fromY;
  }
  return marks;
}

/** Unchanged lines pair up in order; every run of removed or added lines between them is a change. */
function regions(marks: EditMarks, range: LineChange): LineChange[] {
  const changes: LineChange[] = [];
  const n = marks.removed.length;
  const m = marks.added.length;
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if ((i < n && marks.removed[i]) || (j < m && marks.added[j])) {
      const change = { beforeStart: i, afterStart: j };
      while ((i < n && marks.removed[i]) || (j < m && marks.added[j])) {
        while (i < n && marks.removed[i]) i++;
        while (j < m && marks.added[j]) j++;
      }
      changes.push({
        beforeStart: range.beforeStart + change.beforeStart,
        beforeEnd: range.beforeStart + i,
        afterStart: range.afterStart + change.afterStart,
        afterEnd: range.afterStart + j,
      });
    } else {
      i++;
      j++;
    }
  }
  return changes;
}
