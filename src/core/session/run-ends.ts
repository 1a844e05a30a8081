/**
 * How the runs of a stored conversation ended. A run starts with the lead's prompt
 * (`user_message`) and ends with `done`, `interrupted` or `error`. The recorder saves streamed
 * text while it streams, so a window closed mid-run (a reload, a crash, VS Code quitting) leaves
 * a run with no end: an answer that stops mid-sentence, calls that never got a result. Reopening
 * ends such runs with an `interrupted` event, so every surface marks them as cut off; and it
 * finds the prompt whose run failed last, which Retry may send again.
 */
import type { AgentEvent } from '../events/events';

const LEAD = 'lead';

/** Why a reopened run has no end. */
export const CLOSED_MID_RUN = 'The window closed (a reload, a crash or quitting) before the agent finished.';

type UserMessage = Extract<AgentEvent, { type: 'user_message' }>;

export function isRunEnd(event: AgentEvent): boolean {
  return event.agentId === LEAD && (event.type === 'done' || event.type === 'interrupted' || event.type === 'error');
}

/**
 * `events` with an `interrupted` event closing each run that never ended, placed after the run's
 * last event and numbered like it (nothing is written: each reopening derives it again).
 */
export function endUnfinishedRuns(events: readonly AgentEvent[]): AgentEvent[] {
  const ended: AgentEvent[] = [];
  /** The last event of the run in progress, while one is. */
  let open: AgentEvent | undefined;
  for (const event of events) {
    if (event.agentId === LEAD && event.type === 'user_message') {
      if (open) ended.push(interruptedAfter(open));
      open = event;
    } else if (isRunEnd(event)) {
      open = undefined;
    } else if (open) {
      open = event;
    }
    ended.push(event);
  }
  if (open) ended.push(interruptedAfter(open));
  return ended;
}

function interruptedAfter(last: AgentEvent): AgentEvent {
  return {
    conversationId: last.conversationId,
    agentId: LEAD,
    seq: last.seq,
    time: last.time,
    type: 'interrupted',
    reason: CLOSED_MID_RUN,
  };
}

/**
 * The prompt of the conversation's last run when that run failed (its last words from the user,
 * and the error that ended it); undefined when the last run did not fail, or failed before its
 * prompt was recorded (a hook blocked it).
 */
export function lastFailedRun(events: readonly AgentEvent[]): { prompt: UserMessage; errorSeq: number } | undefined {
  let prompt: UserMessage | undefined;
  let failed: { prompt: UserMessage; errorSeq: number } | undefined;
  for (const event of events) {
    if (event.agentId !== LEAD) continue;
    if (event.type === 'user_message') {
      prompt = event;
      failed = undefined;
    } else if (isRunEnd(event)) {
      failed = event.type === 'error' && prompt ? { prompt, errorSeq: event.seq } : undefined;
      prompt = undefined;
    }
  }
  return failed;
}
