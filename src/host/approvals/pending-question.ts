/**
 * One approval question while it waits for the user (issue 33): it can be shown again — a fresh
 * notification for the same question, when the first hid in the notification center while the
 * user looked at another session — and every notification of it feeds the same answer. The first
 * answer wins; a later one (the twin notification, still on screen or in the center) is ignored:
 * VS Code has no way to close a notification it showed. Never two decisions, never a lost one.
 * Closing one notification (its ×) while a twin of it is still out is not an answer: the twin
 * still asks; closing the last one is (the gate takes it as a denial).
 *
 * An answer is asked for in rounds (the gate asks again after "Show Details"): an answer that
 * comes between rounds — a twin clicked while the details open — is kept for the next round, so
 * it is not lost. No answer within the deadline is a timeout; the deadline starts again when the
 * question is shown again (the user is looking at it now). Closing the question (the run was
 * stopped, the decision made) ignores every later answer.
 */

/** A notification of the question: resolves with the button chosen, undefined when closed. */
export type ShowQuestion = () => Thenable<string | undefined>;

export const TIMEOUT = Symbol('timeout');
export type Answer = string | undefined | typeof TIMEOUT;

const NO_ANSWER = Symbol('none');

export class PendingQuestion {
  private waiting: { resolve(answer: Answer): void; reject(reason: unknown): void } | undefined;
  /** An answer that came while no round waited (between rounds): the next round takes it. */
  private early: Answer | typeof NO_ANSWER = NO_ANSWER;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private shownAt = Number.NEGATIVE_INFINITY;
  /** Notifications of it shown and not yet answered or closed. */
  private live = 0;
  private readonly stopWatching: () => void;

  constructor(
    private readonly showQuestion: ShowQuestion,
    private readonly options: {
      signal: AbortSignal;
      timeoutMs: number;
      now?: () => number;
      /** A question that must be answered before anything else (a modal dialog): it cannot hide. */
      modal?: boolean;
    },
  ) {
    const { signal } = options;
    const onAbort = () => {
      const waiting = this.waiting;
      this.close();
      waiting?.reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    this.stopWatching = () => signal.removeEventListener('abort', onAbort);
  }

  /** Whether it still waits for the user (neither decided nor stopped). */
  get isOpen(): boolean {
    return !this.closed;
  }

  get isModal(): boolean {
    return this.options.modal === true;
  }

  /** When it was last shown (the clock of `now`). */
  get lastShown(): number {
    return this.shownAt;
  }

  /**
   * The next answer: one given since the last round, else one to come, with a fresh
   * notification for it (the first round's, or after "Show Details" closed the one clicked).
   */
  next(): Promise<Answer> {
    if (this.options.signal.aborted) return Promise.reject(this.options.signal.reason);
    if (this.closed) return Promise.resolve(undefined);
    if (this.waiting) throw new Error('A round of this question is already waiting.');
    if (this.early !== NO_ANSWER) {
      const answer = this.early;
      this.early = NO_ANSWER;
      return Promise.resolve(answer);
    }
    return new Promise<Answer>((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.show();
    });
  }

  /** Shows a fresh notification of the question; false when it no longer waits. */
  show(): boolean {
    if (this.closed) return false;
    this.shownAt = (this.options.now ?? Date.now)();
    if (this.waiting) this.restartTimer();
    let shown: Thenable<string | undefined>;
    try {
      shown = this.showQuestion();
    } catch (error) {
      shown = Promise.reject(error);
    }
    this.live++;
    const settled = (choice: string | undefined) => {
      this.live--;
      // A twin closed unanswered while another is out: the other still asks.
      if (choice === undefined && this.live > 0) return;
      this.answer(choice);
    };
    // The editor refused to show it (its test mode refuses modal dialogs): the round fails with
    // the editor's reason, so the user sees why the call did not run; never a hang. A twin that
    // is still out keeps asking.
    const refused = (error: unknown) => {
      this.live--;
      if (this.live > 0) return;
      this.fail(error);
    };
    Promise.resolve(shown).then(settled, refused);
    return true;
  }

  /** Ends it: every answer from now on is ignored. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.waiting = undefined;
    this.early = NO_ANSWER;
    if (this.timer) clearTimeout(this.timer);
    this.stopWatching();
  }

  private answer(answer: Answer): void {
    if (this.closed) return;
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = undefined;
      if (this.timer) clearTimeout(this.timer);
      waiting.resolve(answer);
    } else if (this.early === NO_ANSWER) {
      this.early = answer;
    }
  }

  private fail(error: unknown): void {
    if (this.closed) return;
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = undefined;
      if (this.timer) clearTimeout(this.timer);
      waiting.reject(error);
    } else if (this.early === NO_ANSWER) {
      // Shown again while no round waited: as if closed unanswered.
      this.early = undefined;
    }
  }

  private restartTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.answer(TIMEOUT), this.options.timeoutMs);
  }
}
