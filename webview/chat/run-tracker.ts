/**
 * What the chat shows about how things ended, kept with the transcript's turns and worked out
 * from events only (a reopened conversation replays the same events, so it looks the same):
 * - each tool line's outcome: waiting for approval, running, ran, failed, denied by you,
 *   refused by policy… and "did not finish" when its run ended first;
 * - an answer cut off (stopped, redirected, the window closed, an error, the output limit) is
 *   marked as such, so a half sentence never passes for a whole answer;
 * - each error's Retry belongs to that error: it can be used while its run is the last one,
 *   turns into "Retried" once its prompt was sent again (shown once, under the error), and is
 *   disabled once a newer prompt was sent.
 * No DOM here: chat-view.ts renders the turns, this keeps them right.
 */
import {
  endedOutcome,
  nextToolOutcome,
  toolCallTarget,
  type AgentEvent,
  type ToolOutcome,
} from '../../src/protocol/events';
import type { NoticeAction, Turn, TurnBody } from './turns';
import { teamLineOf } from './team-approval-line';

type EventOf<T extends AgentEvent['type']> = Extract<AgentEvent, { type: T }>;
export type ToolEvent = EventOf<'tool_approval_request'> | EventOf<'tool_approval_result'> | EventOf<'tool_result'>;
/** The events that end a run. */
export type RunEnd = EventOf<'done'> | EventOf<'interrupted'> | EventOf<'error'>;

const LEAD = 'lead';

/** How an answer a run ended early is marked: a short label and the reason. */
export interface CutMark {
  label: 'Interrupted' | 'Cut off';
  reason: string;
}

/** Why a finished run's last answer is incomplete, from how the run ended; undefined when it is not. */
export function cutMarkFor(end: RunEnd): CutMark | undefined {
  switch (end.type) {
    case 'interrupted':
      return { label: 'Interrupted', reason: end.feedback ? 'Redirected by the user.' : end.reason };
    case 'error':
      return { label: 'Interrupted', reason: 'An error ended the run (below).' };
    case 'done':
      switch (end.stopReason) {
        case 'max_tokens':
          return { label: 'Cut off', reason: 'The answer reached the output limit (max output tokens).' };
        case 'token_budget':
          return { label: 'Cut off', reason: 'The token budget for this prompt ran out.' };
        case 'refusal':
          return { label: 'Cut off', reason: 'The model refused to go on.' };
        default:
          return undefined;
      }
  }
}

export class RunTracker {
  /** Tool lines of the run in progress, by call id (the lead's calls: the chat shows no others). */
  private readonly toolLines = new Map<string, number>();
  /** The run's last answer or tool line: what a cut-off run marks. */
  private lastContent: number | undefined;
  /** Error turns whose Retry is still usable, by the error's sequence number. */
  private readonly retryable = new Map<number, number>();

  constructor(
    private readonly turns: Turn[],
    private readonly touch: (index: number) => void,
  ) {}

  reset(): void {
    this.toolLines.clear();
    this.retryable.clear();
    this.lastContent = undefined;
  }

  /**
   * A prompt starts a run. Every earlier Retry is used up: the one this prompt retries reads
   * "Retried", the others are out of date. False when the prompt is such a retry and already
   * shown above its error: the transcript shows it once.
   */
  prompt(event: EventOf<'user_message'>): boolean {
    const retried = event.retryOf === undefined ? undefined : this.retryable.get(event.retryOf);
    for (const [errorSeq, index] of this.retryable) {
      const turn = this.turns[index];
      if (turn?.kind !== 'error' || !turn.retry) continue;
      turn.retry.state = errorSeq === event.retryOf ? 'retried' : 'stale';
      this.touch(index);
    }
    this.retryable.clear();
    this.toolLines.clear();
    this.lastContent = undefined;
    return retried === undefined;
  }

  /** An answer's text started at turn `index`. */
  answer(index: number): void {
    this.lastContent = index;
  }

  /** A tool line for the lead's call; `add` puts it into the transcript and returns its index. */
  toolCall(event: EventOf<'tool_call'>, add: (body: TurnBody) => number): void {
    const index = add({
      kind: 'tool',
      name: event.toolName,
      target: toolCallTarget(event.input),
      outcome: { state: 'running' },
    });
    this.toolLines.set(event.toolCallId, index);
    this.lastContent = index;
  }

  /** The call's approval request, decision or result: its line shows the outcome so far. */
  toolEvent(event: ToolEvent): void {
    if (event.agentId !== LEAD) return;
    const index = this.toolLines.get(event.toolCallId);
    const turn = index === undefined ? undefined : this.turns[index];
    if (turn?.kind !== 'tool') return;
    const outcome = nextToolOutcome(turn.outcome, event);
    if (sameOutcome(outcome, turn.outcome)) return;
    turn.outcome = outcome;
    this.touch(index!);
  }

  /** A named teammate's request for the call (issue 37): its line says who it waits for, who decided. */
  teamEvent(event: EventOf<'team_approval'>): void {
    if (event.agentId !== LEAD) return;
    const index = this.toolLines.get(event.toolCallId);
    const turn = index === undefined ? undefined : this.turns[index];
    if (turn?.kind !== 'tool') return;
    turn.team = teamLineOf(event, turn.team);
    this.touch(index!);
  }

  /**
   * The run ended: calls still waiting or running did not finish, and its last answer is marked
   * when the run was cut off. True when something was marked (no separate status line needed).
   */
  end(event: RunEnd): boolean {
    const mark = cutMarkFor(event);
    let marked = false;
    const unfinished = mark?.reason ?? 'The run ended first.';
    for (const index of this.toolLines.values()) {
      const turn = this.turns[index];
      if (turn?.kind !== 'tool') continue;
      const outcome = endedOutcome(turn.outcome, unfinished);
      if (outcome === turn.outcome) continue;
      turn.outcome = outcome;
      this.touch(index);
      marked = true;
    }
    const last = this.lastContent === undefined ? undefined : this.turns[this.lastContent];
    if (mark && last?.kind === 'assistant') {
      last.cut = mark;
      this.touch(this.lastContent!);
      marked = true;
    }
    this.toolLines.clear();
    this.lastContent = undefined;
    return marked;
  }

  /**
   * The error that ended a run, as a turn: its fixes, and its Retry tied to this very error (a
   * sub-agent's or teammate's error has no Retry of its own: the lead's run goes on or fails).
   */
  errorTurn(event: EventOf<'error'>, fixes: NoticeAction[]): TurnBody {
    const lead = event.agentId === LEAD;
    const actions = lead ? fixes : fixes.filter((fix) => fix.action !== 'retry');
    return {
      kind: 'error',
      text: event.message,
      actions,
      ...(lead && actions.some((fix) => fix.action === 'retry')
        ? { retry: { conversationId: event.conversationId, errorSeq: event.seq, state: 'available' as const } }
        : {}),
    };
  }

  /** The error turn at `index` was added: its Retry is usable until the next prompt. */
  errorAdded(index: number): void {
    const turn = this.turns[index];
    if (turn?.kind === 'error' && turn.retry) this.retryable.set(turn.retry.errorSeq, index);
  }

  /** The user clicked Retry at `index`: it is disabled at once (a second click sends nothing). */
  retryClicked(index: number): { conversationId: string; errorSeq: number } | undefined {
    const turn = this.turns[index];
    if (turn?.kind !== 'error' || turn.retry?.state !== 'available') return undefined;
    turn.retry.state = 'sent';
    this.touch(index);
    return { conversationId: turn.retry.conversationId, errorSeq: turn.retry.errorSeq };
  }
}

function sameOutcome(a: ToolOutcome, b: ToolOutcome): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
