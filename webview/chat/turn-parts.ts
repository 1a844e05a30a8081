/**
 * Parts of chat turns that say how something ended: a tool line with its outcome, the mark on an
 * answer that was cut off, and the state of an error's Retry. Every outcome is written out in
 * words (a colour and a symbol only repeat it), in the theme's colours (chat.css).
 */
import { describeToolOutcome, type ToolOutcome, type ToolOutcomeState } from '../../src/protocol/events';
import type { RetryState } from './turns';
import { teamOutcomeWords, type TeamLine } from './team-approval-line';

/** The symbol before an outcome (decoration: the words say the same). */
const SYMBOLS: Record<ToolOutcomeState, string> = {
  running: '…',
  awaiting_approval: '?',
  ran: '✓',
  failed: '✗',
  denied: '⊘',
  refused: '⊘',
  not_finished: '◌',
};

/** The outcome in one line of words: "Denied by you · not now", "Ran · exit code 0 (2 lines of output)". */
export function toolOutcomeText(outcome: ToolOutcome, team?: TeamLine): string {
  const { label, detail } = outcomeWords(outcome, team);
  return detail ? `${label} · ${detail}` : label;
}

/** Fills a tool line: the call ("bash npm test") above what became of it. */
export function renderToolLine(
  element: HTMLElement,
  turn: { name: string; target: string; outcome: ToolOutcome; team?: TeamLine },
): void {
  element.classList.add(`tool-${turn.outcome.state.replace(/_/g, '-')}`);
  element.dataset.outcome = turn.outcome.state;
  // A call a named teammate decides: which step the request is at (waiting, approved…).
  if (turn.team) element.dataset.team = turn.team.state;
  const call = document.createElement('div');
  call.className = 'tool-call';
  const name = document.createElement('span');
  name.className = 'tool-name';
  name.textContent = turn.name;
  call.append(name);
  if (turn.target) {
    const target = document.createElement('span');
    target.className = 'tool-target';
    target.textContent = turn.target;
    call.append(' ', target);
  }
  const outcome = document.createElement('div');
  outcome.className = 'tool-outcome';
  const symbol = document.createElement('span');
  symbol.className = 'tool-symbol';
  symbol.setAttribute('aria-hidden', 'true');
  symbol.textContent = SYMBOLS[turn.outcome.state];
  const { label, detail } = outcomeWords(turn.outcome, turn.team);
  const words = document.createElement('span');
  words.className = 'tool-label';
  words.textContent = label;
  outcome.append(symbol, words);
  if (detail) {
    const more = document.createElement('span');
    more.className = 'tool-detail';
    more.textContent = ` · ${detail}`;
    outcome.append(more);
  }
  // Running and waiting lines change as the call goes on; screen readers hear the change.
  if (turn.outcome.state === 'running' || turn.outcome.state === 'awaiting_approval')
    outcome.setAttribute('aria-live', 'polite');
  element.append(call, outcome);
}

/** The outcome's words; a teammate's decision names who decided. */
function outcomeWords(outcome: ToolOutcome, team: TeamLine | undefined): { label: string; detail?: string } {
  return (team && teamOutcomeWords(outcome, team)) ?? describeToolOutcome(outcome);
}

/** The mark under an answer its run cut off: "Interrupted · Stopped by the user." */
export function renderCutMark(cut: { label: string; reason: string }): HTMLElement {
  const mark = document.createElement('p');
  mark.className = 'answer-cut';
  mark.setAttribute('role', 'note');
  const label = document.createElement('strong');
  label.textContent = cut.label;
  mark.append(label, ` · ${cut.reason}`);
  return mark;
}

/** How an error's Retry button looks in each state: usable only while its run is the last one. */
export function retryButtonState(state: RetryState['state']): { label: string; disabled: boolean; title?: string } {
  switch (state) {
    case 'available':
      return { label: 'Retry', disabled: false };
    case 'sent':
      return { label: 'Retry', disabled: true, title: 'Sending this prompt again…' };
    case 'retried':
      return { label: 'Retried', disabled: true, title: 'This prompt was sent again: its new run is below.' };
    case 'stale':
      return {
        label: 'Retry',
        disabled: true,
        title: 'A newer prompt has been sent since: this Retry is out of date.',
      };
  }
}
