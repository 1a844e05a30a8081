/**
 * Waiting on the team database for a request's decision: woken by NOTIFY, and polling as well
 * (every `pollMs`, at the deadline the database gave, and whenever LISTEN comes back), so a lost
 * announcement or a connection that never delivers them only makes the wait slower, never
 * endless. Timers only decide when to read again; what the state is, the timeout included, is
 * always the database's answer.
 */
import { TeamUnreachableError } from './team-store';
import type { TeamApprovalRecord, TeamApprovals } from './team-approvals';

export const DEFAULT_APPROVAL_POLL_MS = 5_000;
/** Read a little after the deadline, so the database's clock has surely passed it. */
const DEADLINE_SLACK_MS = 50;

export interface WaitOptions {
  signal: AbortSignal;
  pollMs?: number;
  /** The database stopped answering (said once per outage). */
  onUnreachable?: (reason: string) => void;
  /** It answers again after an outage. */
  onReachable?: () => void;
  /** Give up at the first outage (`on_unreachable: block`) instead of waiting through it. */
  blockWhenUnreachable?: boolean;
}

export type WaitOutcome = { record: TeamApprovalRecord } | { unreachable: string };

/** A wake-up flag a notification sets and the next sleep consumes (none is lost in between). */
export class Wakeup {
  private woken = false;
  private resolve: (() => void) | undefined;

  wake(): void {
    this.woken = true;
    this.resolve?.();
  }

  /** Sleeps `ms`, or less when woken (now or meanwhile), or until `signal` aborts (then throws). */
  async sleep(ms: number, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (this.woken) {
      this.woken = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.resolve = undefined;
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal.addEventListener('abort', done, { once: true });
      this.resolve = done;
    });
    this.woken = false;
    signal.throwIfAborted();
  }
}

/** Resolves with the request once decided (or timed out, or withdrawn); throws when `signal` aborts. */
export async function waitForDecision(
  approvals: TeamApprovals,
  id: string,
  options: WaitOptions,
): Promise<WaitOutcome> {
  const pollMs = options.pollMs ?? DEFAULT_APPROVAL_POLL_MS;
  const wakeup = new Wakeup();
  const stop = approvals.watch((signal) => {
    if ((signal.kind === 'changed' && signal.id === id) || signal.kind === 'listening') wakeup.wake();
  });
  let away: string | undefined;
  try {
    for (;;) {
      options.signal.throwIfAborted();
      let record: TeamApprovalRecord | undefined;
      try {
        record = await approvals.get(id);
      } catch (error) {
        if (!(error instanceof TeamUnreachableError)) throw error;
        if (away === undefined) options.onUnreachable?.(error.message);
        away = error.message;
        if (options.blockWhenUnreachable) return { unreachable: error.message };
        await wakeup.sleep(pollMs, options.signal);
        continue;
      }
      if (away !== undefined) {
        away = undefined;
        options.onReachable?.();
      }
      if (!record) throw new Error(`The team database has no approval request ${id} any more.`);
      if (record.state !== 'pending') return { record };
      await wakeup.sleep(Math.min(pollMs, record.remainingMs + DEADLINE_SLACK_MS), options.signal);
    }
  } finally {
    stop();
  }
}
