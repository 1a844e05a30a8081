/**
 * Which prompt a Retry sends. Each Retry belongs to the run it is shown under: the `error` that
 * ended that run names it (conversation and sequence number), and only the conversation's last
 * failed run can be sent again, once. A Retry from an older error (a newer prompt was sent
 * since, or it was already retried) is refused with the reason, never answered by sending
 * whichever prompt came last. Apart from Retry, a prompt refused because no model was set up
 * waits here until the user fixes the setup (Set API Key, a local server).
 */
import type { AgentEvent, ErrorKind } from '../events/events';
import type { MentionResolver, ResolvedContext } from './mentions';
import type { ImagePart } from '../llm/llm-client';
import type { WorkKind } from '../policy/model-routes';
import { lastFailedRun } from './run-ends';
import type { PromptRequest } from './session-queue';

/** A prompt as it was sent, to send again. */
export interface PromptAttempt {
  prompt: string;
  work: WorkKind;
  /** Mentions are resolved again when it is sent (the problems, the selection may have changed)… */
  resolver?: MentionResolver;
  /** …or, reopened from the store, the context it was sent with. */
  context?: ResolvedContext;
  /** Sent by Retry: the `error` of the run it retries. */
  retryOf?: number;
  /** The images attached to it (issue 36): a Retry sends them again. */
  images?: readonly ImagePart[];
}

/** Why a Retry was not sent. */
export interface RetryRefusal {
  reason: 'stale_retry';
  message: string;
}

/** The error a Retry is for. */
export interface RetryTarget {
  conversationId: string;
  errorSeq: number;
}

export class PromptRetries {
  /** Refused by the setup check: sent once the setup is fixed. */
  private waiting: PromptAttempt | undefined;
  /** The run in progress; after a redirect, its prompt is the user's latest words. */
  private running: PromptAttempt | undefined;
  /** The conversation's last run, when it failed. */
  private failed: (PromptAttempt & { conversationId: string; errorSeq: number; kind?: ErrorKind }) | undefined;
  /** The error whose Retry was taken last: a second click on it is told so. */
  private taken: RetryTarget | undefined;

  /**
   * A prompt is about to be sent: until it runs, it waits for the setup (unless `waitsForFix` is
   * false: a queued message goes back to the queue instead); older failures are out of date.
   */
  attempting(attempt: PromptAttempt, waitsForFix = true): void {
    this.waiting = waitsForFix ? attempt : undefined;
    this.failed = undefined;
  }

  started(attempt: PromptAttempt): void {
    if (this.waiting === attempt) this.waiting = undefined;
    this.running = attempt;
  }

  /** The attempt redirected the run instead of starting one: a failure from now on is of its words. */
  redirected(attempt: PromptAttempt): void {
    if (this.waiting === attempt) this.waiting = undefined;
    if (this.running) this.running = { prompt: attempt.prompt, work: this.running.work };
  }

  /** Stopped while it was being set up: it does not wait for a fix (the user has it back). */
  stopped(attempt: PromptAttempt): void {
    if (this.waiting === attempt) this.waiting = undefined;
  }

  ended(attempt: PromptAttempt): void {
    if (this.running === attempt) this.running = undefined;
  }

  /** Sees every event of the conversation: the error ending a run makes its prompt the one to retry. */
  observe(event: AgentEvent): void {
    if (event.type !== 'error' || event.agentId !== 'lead' || !this.running) return;
    this.failed = { ...this.running, conversationId: event.conversationId, errorSeq: event.seq, kind: event.kind };
  }

  /** A conversation reopened from the store: its last run, if it failed, can be retried. */
  reopened(conversationId: string, events: readonly AgentEvent[]): void {
    this.clear();
    const failed = lastFailedRun(events);
    if (!failed) return;
    const { prompt } = failed;
    this.failed = {
      conversationId,
      errorSeq: failed.errorSeq,
      prompt: prompt.text,
      work: 'chat',
      ...(prompt.context || prompt.attachments
        ? { context: { labels: prompt.attachments ?? [], text: prompt.context ?? '' } }
        : {}),
    };
  }

  clear(): void {
    this.waiting = undefined;
    this.running = undefined;
    this.failed = undefined;
    this.taken = undefined;
  }

  /**
   * What a fix of the setup sends: the prompt refused for it, or the last run's when that run
   * failed on its credentials (an error's Set API Key). Nothing otherwise: setting a key never
   * sends an old prompt by surprise.
   */
  waitingForFix(): PromptAttempt | undefined {
    if (this.waiting) return this.waiting;
    const failed = this.failed;
    if (failed?.kind !== 'authentication') return undefined;
    return this.consume(failed);
  }

  /**
   * The prompt `target`'s Retry sends (taken at once: a second click cannot send it twice), or
   * why it sends nothing.
   */
  take(
    target: RetryTarget,
    state: { running: boolean; conversationId: string | undefined; events: readonly AgentEvent[] },
  ): PromptAttempt | RetryRefusal {
    const failed = this.failed;
    if (!state.running && failed && sameTarget(failed, target)) return this.consume(failed);
    return { reason: 'stale_retry', message: this.refusalFor(target, state) };
  }

  private consume(failed: NonNullable<PromptRetries['failed']>): PromptAttempt {
    this.failed = undefined;
    this.taken = { conversationId: failed.conversationId, errorSeq: failed.errorSeq };
    const { conversationId: _conversation, errorSeq, kind: _kind, ...attempt } = failed;
    return { ...attempt, retryOf: errorSeq };
  }

  private refusalFor(
    target: RetryTarget,
    state: { running: boolean; conversationId: string | undefined; events: readonly AgentEvent[] },
  ): string {
    if (state.conversationId !== target.conversationId)
      return 'Not retried: that error belongs to a conversation that is no longer open.';
    const retried =
      (this.taken && sameTarget(this.taken, target)) ||
      state.events.some((event) => event.type === 'user_message' && event.retryOf === target.errorSeq);
    if (retried) return 'Not retried: this prompt was already sent again after that error.';
    if (state.running) return 'Not retried: the agent is working. Retry is possible once it has finished.';
    return 'Not retried: a newer prompt has been sent since that error. Send the prompt again yourself if you still want it.';
  }
}

function sameTarget(a: RetryTarget, b: RetryTarget): boolean {
  return a.conversationId === b.conversationId && a.errorSeq === b.errorSeq;
}

/** A prompt to send again, as the queue takes it. */
export function requestOf(attempt: PromptAttempt): PromptRequest {
  return {
    text: attempt.prompt,
    work: attempt.work,
    ...(attempt.resolver ? { resolve: attempt.resolver } : {}),
    ...(attempt.context ? { context: attempt.context } : {}),
    ...(attempt.retryOf !== undefined ? { retryOf: attempt.retryOf } : {}),
    ...(attempt.images ? { images: attempt.images } : {}),
  };
}
