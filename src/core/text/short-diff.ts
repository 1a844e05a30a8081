/**
 * A short line diff for approval questions (the terminal, an approver's details): what an edit or write changes, with one line
 * of context around each change, cut to a few lines. The changes come from the core's line diff
 * (Myers); removed lines are shown before added ones, as diffs usually show them.
 */
import { diffLines } from './line-diff';

const CONTEXT = 1;

type Op = { kind: ' ' | '-' | '+'; text: string };

export function shortDiff(before: string, after: string, maxLines = 30): string[] {
  const a = before.split('\n');
  const b = after.split('\n');
  const changes = diffLines(a, b);
  const first = changes[0];
  const last = changes.at(-1);
  if (!first || !last) return [];
  const unchanged = (from: number, to: number): Op[] => a.slice(from, to).map((text) => ({ kind: ' ', text }));
  const ops: Op[] = unchanged(Math.max(0, first.beforeStart - CONTEXT), first.beforeStart);
  changes.forEach((change, index) => {
    ops.push(
      ...a.slice(change.beforeStart, change.beforeEnd).map((text) => ({ kind: '-' as const, text })),
      ...b.slice(change.afterStart, change.afterEnd).map((text) => ({ kind: '+' as const, text })),
      ...unchanged(change.beforeEnd, changes[index + 1]?.beforeStart ?? change.beforeEnd),
    );
  });
  ops.push(...unchanged(last.beforeEnd, last.beforeEnd + CONTEXT));
  return render(ops, maxLines);
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
