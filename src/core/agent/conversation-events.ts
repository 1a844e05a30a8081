/**
 * A conversation's event stream: every event numbered in one sequence (the lead's, its
 * sub-agents' and teammates'), stamped with the conversation and time, redacted of every secret
 * the product holds, and given to each subscriber (a faulty subscriber breaks nothing).
 * Streamed answer text goes through a SecretStream per agent, so a secret cut between two deltas
 * is still found before anyone sees it.
 */
import type { AgentEvent, AgentEventBody } from '../events/events';
import type { Clock } from '../ports';
import { redactKnownValue, redactValue } from '../llm/redact';
import { SecretStream } from '../llm/held-secrets';
import type { SecretMatcher } from '../llm/secret-matcher';

export type EventListener = (event: AgentEvent) => void;

/** Events whose text comes from outside the model's answer (servers, tools, files): redacted. */
const TRACED = new Set<AgentEventBody['type']>(['llm_request', 'llm_response']);
const CARRIES_OUTSIDE_TEXT = new Set<AgentEventBody['type']>([
  'error',
  'tool_call',
  'tool_result',
  'tool_approval_request',
  'tool_approval_result',
  'background_result',
]);

export class ConversationEvents {
  /** The number the next event gets. */
  seq = 0;
  private readonly listeners = new Set<EventListener>();
  /** Each agent's answer text as it streams, with a held secret cut between two deltas still found. */
  private readonly answerTexts = new Map<string, SecretStream>();

  constructor(
    private readonly conversationId: string,
    private readonly clock: Clock,
    private readonly secrets: () => SecretMatcher,
  ) {}

  /** Subscribes to every event from now on; returns the unsubscribe function. */
  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(original: AgentEventBody, agentId: string): void {
    if (original.type === 'text_delta') {
      // The end of a delta that could begin a secret waits for the next one (SecretStream).
      let stream = this.answerTexts.get(agentId);
      if (!stream) this.answerTexts.set(agentId, (stream = new SecretStream(this.secrets)));
      const text = stream.push(original.text);
      if (text) this.stamp({ ...original, text }, agentId);
      return;
    }
    // Any other event ends that agent's text; the end of a run ends everyone's.
    const ends = original.type === 'done' || original.type === 'error' || original.type === 'interrupted';
    for (const [streamAgent, stream] of this.answerTexts) {
      if (streamAgent !== agentId && !ends) continue;
      const rest = stream.end();
      if (rest) this.stamp({ type: 'text_delta', text: rest }, streamAgent);
    }
    // An error may quote the server, and a server may echo the key it was sent (a 400 body); a
    // tool's input or output may hold a key (`cat .env`, `printenv`): every surface — chat,
    // panel, CLI, store, audit, exports — shows or keeps these, so keys never reach them.
    // Every other event (a sub-agent's summary, an attachment, a review's diff) loses the held
    // secrets only; traces were redacted whole by tracing.ts.
    const body = CARRIES_OUTSIDE_TEXT.has(original.type)
      ? redactValue(original, this.secrets())
      : TRACED.has(original.type)
        ? original
        : redactKnownValue(original, this.secrets());
    this.stamp(body, agentId);
  }

  private stamp(body: AgentEventBody, agentId: string): void {
    // Bodies are fresh literals made for this call: stamping them in place saves a copy per event.
    const event = Object.assign(body, {
      conversationId: this.conversationId,
      agentId,
      seq: this.seq++,
      time: this.clock.now(),
    }) as AgentEvent;
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A faulty subscriber must not break the run or the other subscribers.
      }
    }
  }
}
