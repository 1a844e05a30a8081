/**
 * The developer panel's Compare tab (SPEC: replay and compare): two recorded runs side by side —
 * their totals (steps, tool calls, tokens, cost, time, errors, approvals, files), their steps
 * aligned row by row with what differs, and the first point where they part highlighted — and on
 * each step "Re-run from here with…". The host sends a bounded window of rows; everything goes in
 * as text.
 */
import type { CompareChoice, CompareRow, CompareTotals, HostToPanel } from '../../src/protocol/messages';
import { el, emptyNote } from './dom';

type CompareView = Extract<HostToPanel, { type: 'compare_view' }>;
type Step = NonNullable<CompareRow['a']>;

export interface CompareActions {
  rerun(conversationId: string, step: number): void;
}

/** Fills a picker with the recorded conversations, keeping what was chosen when it is still listed. */
export function fillPicker(select: HTMLSelectElement, choices: readonly CompareChoice[], placeholder: string): void {
  const chosen = select.value;
  const options = [new Option(placeholder, '')];
  for (const choice of choices) {
    const when = describeTime(choice.createdAt);
    const option = new Option(
      `${choice.title}${choice.recorded ? '' : ' (no recording)'} · ${when} · ${choice.id.slice(0, 8)}`,
      choice.id,
    );
    option.disabled = !choice.recorded;
    options.push(option);
  }
  select.replaceChildren(...options);
  if (choices.some((choice) => choice.id === chosen && choice.recorded)) select.value = chosen;
}

export function renderComparison(view: CompareView, actions: CompareActions): Node[] {
  const nodes: Node[] = [];
  if (view.replay) nodes.push(replayVerdict(view.replay));
  nodes.push(divergenceBox(view));
  nodes.push(totalsTable(view.a, view.b));
  const { onlyA, onlyB, both } = view.files;
  if (onlyA.length || onlyB.length || both)
    nodes.push(
      el(
        'p',
        'compare-files',
        `Files changed by both: ${both}. Only A: ${onlyA.join(', ') || 'none'}. Only B: ${onlyB.join(', ') || 'none'}.`,
      ),
    );
  if (view.offset > 0)
    nodes.push(emptyNote(`${view.offset} earlier aligned step(s), the same in both runs, are not shown.`));
  nodes.push(stepsTable(view, actions));
  const after = view.total - view.offset - view.rows.length;
  if (after > 0) nodes.push(el('p', 'compare-more muted', `${after} more aligned step(s) not shown.`));
  return nodes;
}

function replayVerdict(replay: NonNullable<CompareView['replay']>): HTMLElement {
  const box = el('div', `compare-replay ${replay.reproduced ? 'compare-ok' : 'compare-bad'}`);
  box.append(
    el(
      'strong',
      undefined,
      replay.reproduced
        ? 'Replayed with recorded tools: the run was reproduced.'
        : 'Replayed with recorded tools: the replay diverged.',
    ),
  );
  if (replay.divergence) box.append(...divergenceLines(replay.divergence));
  return box;
}

function divergenceBox(view: CompareView): HTMLElement {
  const first = view.firstDivergence;
  if (!first) return el('p', 'compare-same', 'The two runs did the same thing at every step.');
  const box = el('div', 'compare-divergence');
  box.append(el('strong', undefined, `They first part at step ${first.step}: ${first.what}`));
  box.append(el('div', 'compare-expected', `A: ${first.expected}`), el('div', 'compare-actual', `B: ${first.actual}`));
  return box;
}

function divergenceLines(divergence: NonNullable<CompareView['firstDivergence']>): HTMLElement[] {
  return [
    el('div', undefined, `At step ${divergence.step}: ${divergence.what}`),
    el('div', 'compare-expected', `expected: ${divergence.expected}`),
    el('div', 'compare-actual', `happened: ${divergence.actual}`),
  ];
}

function totalsTable(a: CompareTotals, b: CompareTotals): HTMLTableElement {
  const table = el('table', 'compare-totals');
  table.append(
    el('tr', undefined, el('th'), el('th', undefined, `A: ${a.title}`), el('th', undefined, `B: ${b.title}`)),
  );
  const line = (label: string, show: (totals: CompareTotals) => string) => {
    const left = show(a);
    const right = show(b);
    table.append(
      el(
        'tr',
        left === right ? undefined : 'compare-differs',
        el('th', undefined, label),
        el('td', undefined, left),
        el('td', undefined, right),
      ),
    );
  };
  line('conversation', (totals) => totals.conversationId.slice(0, 8) + (totals.unfinished ? ' (unfinished)' : ''));
  line('steps', (totals) => String(totals.steps));
  line('model calls', (totals) => String(totals.modelCalls));
  line('tool calls', (totals) => String(totals.toolCalls));
  line('tokens', (totals) => totals.tokens.toLocaleString('en-US'));
  line('cost', (totals) => `$${totals.costUsd.toFixed(4)}`);
  line('time', (totals) => `${(totals.durationMs / 1000).toFixed(1)} s`);
  line('errors', (totals) => String(totals.errors));
  line('approvals asked', (totals) => String(totals.approvalsAsked));
  line('denied', (totals) => String(totals.denials));
  line('files changed', (totals) => String(totals.files));
  return table;
}

function stepsTable(view: CompareView, actions: CompareActions): HTMLTableElement {
  const table = el('table', 'compare-steps');
  table.setAttribute('aria-label', 'Steps of the two runs, aligned');
  table.append(
    el(
      'tr',
      undefined,
      el('th', undefined, 'step'),
      el('th', undefined, 'A'),
      el('th', undefined, ''),
      el('th', undefined, 'step'),
      el('th', undefined, 'B'),
    ),
  );
  for (const row of view.rows) {
    const first = row.index === view.firstIndex;
    const tr = el('tr', `compare-row${row.same ? '' : ' compare-differs'}${first ? ' compare-first' : ''}`);
    tr.dataset.index = String(row.index);
    if (first) tr.dataset.first = 'true';
    tr.append(...side(row.a, view.a.conversationId, actions));
    const mark = el('td', 'compare-mark', row.same ? '' : '≠');
    if (row.difference) mark.title = row.difference;
    tr.append(mark, ...side(row.b, view.b.conversationId, actions));
    table.append(tr);
    if (first && row.difference)
      table.append(
        el('tr', 'compare-why', el('td'), Object.assign(el('td', undefined, row.difference), { colSpan: 4 })),
      );
  }
  return table;
}

function side(step: Step | undefined, conversationId: string, actions: CompareActions): HTMLTableCellElement[] {
  if (!step) return [el('td', 'compare-step'), el('td', 'compare-label muted', '—')];
  const label = el('td', `compare-label compare-${step.kind}`);
  const agent = step.agentId && step.agentId !== 'lead' ? `[${step.agentId}] ` : '';
  label.append(el('span', 'compare-text', `${agent}${step.label}`));
  if (step.kind !== 'interrupt') {
    const rerun = el('button', 'compare-rerun', 'Re-run from here with…');
    rerun.type = 'button';
    rerun.title = `Re-run this conversation from step ${step.step} with another model, preset or message`;
    rerun.dataset.step = String(step.step);
    rerun.addEventListener('click', () => actions.rerun(conversationId, step.step));
    label.append(rerun);
  }
  return [el('td', 'compare-step', String(step.step)), label];
}

function describeTime(time: number): string {
  const date = new Date(time);
  return time > 0 && !Number.isNaN(date.getTime()) ? date.toLocaleString() : 'unknown time';
}
