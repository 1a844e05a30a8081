/**
 * The developer panel's Compare tab as a message (SPEC: replay and compare): two runs compared by
 * compareRuns (core), made small enough for a webview whatever the runs' size — a window of at
 * most MAX_COMPARE_ROWS aligned rows that holds the first divergence, every text one line cut to
 * MAX_COMPARE_TEXT characters, file lists capped — with what is left out counted. No `vscode`
 * import: unit-tested in Node.
 */
import type { Divergence } from '../../core/replay/divergence';
import type { RunComparison, RunTotals, StepSummary } from '../../core/replay/compare-runs';
import {
  MAX_COMPARE_ROWS,
  MAX_COMPARE_TEXT,
  type CompareRow,
  type CompareTotals,
  type HostToPanel,
} from '../../protocol/messages';

export type CompareViewMessage = Extract<HostToPanel, { type: 'compare_view' }>;

/** Rows shown before the first divergence, when the window is moved to hold it. */
const LEAD_ROWS = 20;
const MAX_FILES = 100;

export interface CompareViewOptions {
  /** Titles of the two conversations (the store's). */
  titles?: { a?: string; b?: string };
  /** The window's first row (default: just before the first divergence). */
  offset?: number;
  /** At most this many rows (never more than MAX_COMPARE_ROWS). */
  rows?: number;
  /** What a replay of A with recorded tools found. */
  replay?: { reproduced: boolean; divergence?: Divergence };
}

export function compareViewMessage(comparison: RunComparison, options: CompareViewOptions = {}): CompareViewMessage {
  const size = Math.max(1, Math.min(options.rows ?? MAX_COMPARE_ROWS, MAX_COMPARE_ROWS));
  const total = comparison.rows.length;
  const firstIndex = comparison.rows.findIndex((row) => !row.same);
  const wanted = options.offset ?? (firstIndex > LEAD_ROWS ? firstIndex - LEAD_ROWS : 0);
  const offset = Math.max(0, Math.min(Math.floor(wanted), Math.max(0, total - size)));
  const rows: CompareRow[] = comparison.rows.slice(offset, offset + size).map((row, index) => ({
    index: offset + index,
    ...(row.a ? { a: stepLine(row.a) } : {}),
    ...(row.b ? { b: stepLine(row.b) } : {}),
    same: row.same,
    ...(row.difference !== undefined ? { difference: oneLine(row.difference) } : {}),
  }));
  const { onlyA, onlyB, both } = comparison.files;
  return {
    type: 'compare_view',
    a: totalsLine(comparison.a, options.titles?.a),
    b: totalsLine(comparison.b, options.titles?.b),
    rows,
    offset,
    total,
    ...(firstIndex >= 0 ? { firstIndex } : {}),
    ...(comparison.firstDivergence ? { firstDivergence: divergenceLine(comparison.firstDivergence) } : {}),
    files: {
      onlyA: onlyA.slice(0, MAX_FILES).map(oneLine),
      onlyB: onlyB.slice(0, MAX_FILES).map(oneLine),
      both: both.length,
    },
    ...(options.replay
      ? {
          replay: {
            reproduced: options.replay.reproduced,
            ...(options.replay.divergence ? { divergence: divergenceLine(options.replay.divergence) } : {}),
          },
        }
      : {}),
  };
}

export function divergenceLine(divergence: Divergence): NonNullable<CompareViewMessage['firstDivergence']> {
  return {
    step: count(divergence.step),
    what: oneLine(divergence.what),
    expected: oneLine(divergence.expected),
    actual: oneLine(divergence.actual),
  };
}

function stepLine(step: StepSummary): NonNullable<CompareRow['a']> {
  return {
    step: count(step.step),
    kind: step.kind,
    ...(step.agentId ? { agentId: oneLine(step.agentId) } : {}),
    label: oneLine(step.label),
  };
}

function totalsLine(totals: RunTotals, title: string | undefined): CompareTotals {
  return {
    conversationId: totals.conversationId.slice(0, 200),
    title: oneLine(title ?? '') || 'Untitled',
    steps: count(totals.steps),
    modelCalls: count(totals.modelCalls),
    toolCalls: count(totals.toolCalls),
    tokens: amount(totals.tokens),
    costUsd: amount(totals.costUsd),
    durationMs: amount(totals.durationMs),
    errors: count(totals.errors),
    approvalsAsked: count(totals.approvalsAsked),
    denials: count(totals.denials),
    files: count(totals.files.length),
    unfinished: totals.unfinished,
  };
}

function count(value: number): number {
  return Number.isSafeInteger(value) && value >= 0 ? value : 0;
}

function amount(value: number): number {
  return Number.isFinite(value) && value >= 0 ? value : 0;
}

/**
 * Text for one line of the panel: control characters and bidirectional overrides (which could
 * make a label read as something else) become spaces, runs of space one, cut to MAX_COMPARE_TEXT.
 */
export function oneLine(text: string): string {
  const start = text.length > MAX_COMPARE_TEXT * 4 ? text.slice(0, MAX_COMPARE_TEXT * 4) : text;
  // eslint-disable-next-line no-control-regex
  const flat = start.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, ' ');
  const squeezed = flat.replace(/\s+/g, ' ').trim();
  if (squeezed.length <= MAX_COMPARE_TEXT) return squeezed;
  // Never cut between the two halves of a surrogate pair.
  let cut = MAX_COMPARE_TEXT - 1;
  const code = squeezed.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return `${squeezed.slice(0, cut)}…`;
}
