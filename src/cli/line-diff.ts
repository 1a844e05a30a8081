/**
 * A short line diff for approvals on the terminal: what an edit or write changes, with one line
 * of context around each change, cut to a few lines. Common leading and trailing lines are
 * skipped first, so a typical edit leaves a tiny middle to compare line by line (an LCS);
 * a middle too big for that is shown as removed-then-added.
 */

/** Above this many line pairs, the middle is not compared line by line. */
const MAX_LCS_CELLS = 1_000_000;
const CONTEXT = 1;

type Op = { kind: ' ' | '-' | '+'; text: string };

export function shortDiff(before: string, after: string, maxLines = 30): string[] {
  const a = before.split('\n');
  const b = after.split('\n');
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < a.length - prefix &&
    suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  )
    suffix++;
  const middle = diffMiddle(a.slice(prefix, a.length - suffix), b.slice(prefix, b.length - suffix));
  if (!middle.some((op) => op.kind !== ' ')) return [];
  const ops: Op[] = [
    ...a.slice(Math.max(0, prefix - CONTEXT), prefix).map((text) => ({ kind: ' ' as const, text })),
    ...middle,
    ...a.slice(a.length - suffix, a.length - suffix + CONTEXT).map((text) => ({ kind: ' ' as const, text })),
  ];
  return render(ops, maxLines);
}

/** Line-by-line comparison of the differing middle (longest common subsequence). */
function diffMiddle(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_LCS_CELLS) {
    return [...a.map((text) => ({ kind: '-' as const, text })), ...b.map((text) => ({ kind: '+' as const, text }))];
  }
  // lengths[i * (m + 1) + j]: the LCS of a[i..] and b[j..].
  const lengths = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lengths[i * (m + 1) + j] =
        a[i] === b[j]
          ? lengths[(i + 1) * (m + 1) + j + 1]! + 1
          : Math.max(lengths[(i + 1) * (m + 1) + j]!, lengths[i * (m + 1) + j + 1]!);
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ kind: ' ', text: a[i]! });
      i++;
      j++;
    } else if (i < n && (j === m || lengths[(i + 1) * (m + 1) + j]! >= lengths[i * (m + 1) + j + 1]!)) {
      // Removals before additions, as diffs usually show them.
      ops.push({ kind: '-', text: a[i]! });
      i++;
    } else {
      ops.push({ kind: '+', text: b[j]! });
      j++;
    }
  }
  return ops;
}

/** Changed lines with their context; "…" where unchanged lines are left out; cut at `maxLines`. */
function render(ops: Op[], maxLines: number): string[] {
  const keep = ops.map((op, index) =>
    ops.slice(Math.max(0, index - CONTEXT), index + CONTEXT + 1).some((near) => near.kind !== ' '),
  );
  const lines: string[] = [];
  let skipped = false;
  ops.forEach((op, index) => {
    if (!keep[index]) {
      skipped = true;
      return;
    }
    if (skipped && lines.length > 0) lines.push('…');
    skipped = false;
    lines.push(`${op.kind} ${op.text}`);
  });
  if (lines.length <= maxLines) return lines;
  const hidden = lines.slice(maxLines).filter((line) => line.startsWith('-') || line.startsWith('+')).length;
  return [...lines.slice(0, maxLines), `… ${hidden} more changed line${hidden === 1 ? '' : 's'}`];
}
