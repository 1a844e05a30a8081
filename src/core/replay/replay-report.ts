/**
 * Replays and comparisons as plain text for a terminal or a CI log: a divergence in three lines,
 * a comparison as a table of aligned steps and one of totals. Every cell comes from a recording,
 * which may come from anywhere: control characters are shown as spaces, so a recorded value
 * cannot move the cursor, recolour the terminal or forge a line.
 */
import type { RunComparison, RunTotals } from './compare-runs';
import type { Divergence } from './divergence';
import type { ReplayOutcome } from './replay-run';

const COLUMN = 56;

export function renderReplay(conversationId: string, outcome: ReplayOutcome): string {
  const lines: string[] = [];
  const steps = `${outcome.stepsReplayed} of ${outcome.lastStep} steps`;
  if (outcome.divergence) {
    lines.push(`Replay of ${clean(conversationId)} diverged (${steps} replayed).`);
    lines.push(...renderDivergence(outcome.divergence));
  } else if (outcome.ended === 'until')
    lines.push(`Replay of ${clean(conversationId)} reproduced the run up to the step asked (${steps}).`);
  else if (outcome.ended === 'truncated')
    lines.push(
      `Replay of ${clean(conversationId)} reproduced the run as far as it was recorded (${steps}): the run never finished.`,
    );
  else lines.push(`Replay of ${clean(conversationId)} reproduced the run (${steps}).`);
  for (const warning of outcome.warnings) lines.push(`Note: ${clean(warning)}`);
  return `${lines.join('\n')}\n`;
}

export function renderDivergence(divergence: Divergence): string[] {
  const agent = divergence.agentId && divergence.agentId !== 'lead' ? ` (${clean(divergence.agentId)})` : '';
  return [
    `First divergence at step ${divergence.step}${agent}: ${clean(divergence.what)}`,
    `  expected: ${clean(divergence.expected)}`,
    `  actual:   ${clean(divergence.actual)}`,
  ];
}

export function renderComparison(comparison: RunComparison): string {
  const { a, b } = comparison;
  const lines: string[] = [`A: ${clean(a.conversationId)}`, `B: ${clean(b.conversationId)}`, ''];
  const header = `${pad('step', 5)} ${pad('A', COLUMN)}   ${pad('step', 5)} ${pad('B', COLUMN)}`;
  lines.push(header, '-'.repeat(header.length));
  for (const row of comparison.rows) {
    const mark = row.same ? ' ' : '≠';
    lines.push(
      `${pad(row.a ? String(row.a.step) : '', 5)} ${pad(row.a ? clean(row.a.label) : '', COLUMN)} ${mark} ${pad(row.b ? String(row.b.step) : '', 5)} ${pad(row.b ? clean(row.b.label) : '', COLUMN)}`,
    );
  }
  lines.push('', `${pad('', 24)}${pad('A', 16)}${pad('B', 16)}`);
  const total = (label: string, value: (totals: RunTotals) => string) =>
    lines.push(`${pad(label, 24)}${pad(value(a), 16)}${pad(value(b), 16)}`);
  total('steps', (totals) => String(totals.steps));
  total('model calls', (totals) => String(totals.modelCalls));
  total('tool calls', (totals) => String(totals.toolCalls));
  total('tokens', (totals) => totals.tokens.toLocaleString('en-US'));
  total('cost', (totals) => `$${totals.costUsd.toFixed(4)}`);
  total('time', (totals) => `${(totals.durationMs / 1000).toFixed(1)} s`);
  total('errors', (totals) => String(totals.errors));
  total('approvals asked', (totals) => String(totals.approvalsAsked));
  total('denied', (totals) => String(totals.denials));
  total('files changed', (totals) => String(totals.files.length));
  const { onlyA, onlyB } = comparison.files;
  if (onlyA.length) lines.push(`Files only A changed: ${onlyA.map(clean).join(', ')}`);
  if (onlyB.length) lines.push(`Files only B changed: ${onlyB.map(clean).join(', ')}`);
  lines.push('');
  if (comparison.firstDivergence) lines.push(...renderDivergence(comparison.firstDivergence));
  else lines.push('The runs did the same thing at every step.');
  return `${lines.join('\n')}\n`;
}

/** Control characters (C0, DEL, C1) and line breaks as spaces; very long text cut. */
function clean(text: string): string {
  // eslint-disable-next-line no-control-regex
  const visible = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ');
  return visible.length > 2_000 ? `${visible.slice(0, 1_999)}…` : visible;
}

function pad(text: string, width: number): string {
  const chars = [...text];
  return chars.length > width ? `${chars.slice(0, width - 1).join('')}…` : text + ' '.repeat(width - chars.length);
}
