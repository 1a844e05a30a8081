/**
 * What the session list shows of one session (SPEC 5b): its state — running, waiting for the
 * user, done, failed, stopped or not started —, the files its conversation changed, and what it
 * cost. Folded from the conversation's events, so a session reopened from the store shows the
 * same as it did live; a live session adds each event as it comes.
 */
import type { AgentEvent } from '../events/events';
import { totalTokens } from '../events/usage';

const RUN_EVENTS = new Set<AgentEvent['type']>(['user_message', 'done', 'interrupted', 'error']);

export type SessionState = 'new' | 'running' | 'waiting' | 'done' | 'failed' | 'stopped';

export interface SessionSummary {
  state: SessionState;
  /** Distinct files the conversation's turns created or changed (reverted turns included: they were touched). */
  filesChanged: number;
  costUsd: number;
  /** Tokens (cache included), for models without a price (a local one) where the cost says nothing. */
  tokens: number;
  /** One line of what went wrong, when the state is failed. */
  error?: string;
}

/** Folds a conversation's events into its summary, one event at a time. */
export class SessionTally {
  private state: SessionState = 'new';
  private readonly files = new Set<string>();
  /** Approvals asked and not yet answered (a run may ask for several at once: teammates). */
  private readonly asked = new Set<string>();
  private costUsd = 0;
  private tokens = 0;
  private error: string | undefined;

  constructor(events: readonly AgentEvent[] = []) {
    for (const event of events) this.add(event);
  }

  add(event: AgentEvent): void {
    // A sub-agent's or teammate's run ending is not the session's: only the lead's runs count.
    if (RUN_EVENTS.has(event.type) && event.agentId !== 'lead') return;
    switch (event.type) {
      case 'user_message':
        this.state = 'running';
        this.error = undefined;
        this.asked.clear();
        return;
      case 'tool_approval_request':
        this.asked.add(event.toolCallId);
        this.state = 'waiting';
        return;
      case 'tool_approval_result':
        this.asked.delete(event.toolCallId);
        if (this.state === 'waiting' && this.asked.size === 0) this.state = 'running';
        return;
      case 'files_changed':
        for (const file of event.files) this.files.add(file.path);
        return;
      case 'usage':
        // Calls only: a turn's usage repeats its calls' sum.
        if (event.scope !== 'call') return;
        this.costUsd += event.costUsd;
        this.tokens += totalTokens(event.usage);
        return;
      case 'done':
        this.end('done');
        return;
      case 'interrupted':
        // A redirect goes on with the user's words; only a Stop (or a closed window) ends the run.
        if (!event.feedback) this.end('stopped');
        return;
      case 'error':
        this.end('failed');
        this.error = event.message.split('\n')[0]!.slice(0, 300);
        return;
      default:
        return;
    }
  }

  private end(state: SessionState): void {
    this.asked.clear();
    this.state = state;
  }

  get summary(): SessionSummary {
    return {
      state: this.state,
      filesChanged: this.files.size,
      costUsd: this.costUsd,
      tokens: this.tokens,
      ...(this.error !== undefined ? { error: this.error } : {}),
    };
  }
}
