/**
 * A stream that goes quiet must not hang the agent. The SDKs' timeouts stop counting once the
 * response headers arrive, so a server that freezes mid-answer (a stuck GPU, a suspended
 * process, a dead proxy keeping the socket open) would be waited on for many minutes. The
 * watchdog ends the call when the answer has made no progress for `idleMs`, as a connection
 * problem that names the server.
 *
 * Progress, not bytes: a server (or a proxy in front of it) that sends keep-alive comments,
 * pings or empty deltas keeps the socket busy while the answer stands still, and must not keep
 * the agent waiting forever. The reader of the stream says what progress is: a text or
 * reasoning token or a tool-call fragment is progress every time (`progress()`); a record that
 * an answer has once (its usage, its finish, a block's start) is progress the first time only
 * (`once(key)`): repeated, it says nothing new, and a server repeating it forever is timed out.
 *
 * Tokens are progress however long they go on (a slow model on a CPU may think for an hour):
 * there is no cap on the time, but on the amount. The server was asked for at most
 * `maxOutputTokens`, and every progress event carries at least one token, so a stream with far
 * more progress events than that (a server ignoring its limit, a proxy inventing deltas) is
 * ended as a broken stream.
 *
 * Once the answer is complete ([DONE], message_stop) only a short grace is given for the body
 * to end: a server that keeps the connection open after its answer does not turn a finished
 * answer into a timeout.
 *
 * Once the answer has begun, a pause of `silenceNoticeMs` is told to `onSilence` (the chat and
 * the CLI say that the model has sent nothing for N s), and the end of the pause too.
 */
import { abortError, onAbort } from '../abort';
import { LlmError } from './llm-client';
import { takeTurn } from './time-slice';

export { linkedAbort } from '../abort';

/** How long a stream may go without progress by default. Generous: a model on a CPU can pause long between tokens under load. */
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 120_000;
/** How long an answer may pause before the user is told. */
export const DEFAULT_SILENCE_NOTICE_MS = 10_000;
/** How long a complete answer's body may take to end before it is let go. */
const AFTER_COMPLETE_GRACE_MS = 2_000;

/** Progress events allowed for an answer of at most `maxOutputTokens` tokens: twice that, and some. */
export function progressLimit(maxOutputTokens: number): number {
  return 2 * Math.max(1, maxOutputTokens) + 1_000;
}

export interface IdleWatchdogOptions {
  idleMs: number;
  /** Aborted when the watchdog gives up (closing the connection); its abort also ends the wait. */
  controller: AbortController;
  /** The server, as messages name it. */
  serverLabel: string;
  /** Told the pause so far (ms) once the answer, begun, has paused this long; undefined when it goes on. */
  onSilence?: (silentMs: number | undefined) => void;
  silenceNoticeMs?: number;
  /** Progress events beyond this end the stream (see progressLimit); default: no limit. */
  maxProgress?: number;
}

export class IdleWatchdog {
  /** Time spent waiting on the server since the last progress, in earlier waits. */
  private silentBefore = 0;
  /** When the current wait on the server began (undefined: the reader has a chunk in hand). */
  private waitingSince: number | undefined;
  private begun = false;
  private noticed = false;
  private progressCount = 0;
  /** The records counted once already (see `once`). */
  private readonly seen = new Set<string>();
  /** The answer is complete: the rest of the body is waited for briefly, then let go. */
  private complete = false;
  /** Looks at the clock again now (the limit changed); set while a stream is watched. */
  private recheck: (() => void) | undefined;

  constructor(private readonly options: IdleWatchdogOptions) {}

  /** The answer moved on: a token or a tool-call fragment. */
  progress(): void {
    this.progressCount++;
    this.silentBefore = 0;
    if (this.waitingSince !== undefined) this.waitingSince = Date.now();
    this.begun = true;
    if (this.noticed) {
      this.noticed = false;
      this.options.onSilence?.(undefined);
    }
  }

  /** A record an answer has once (usage, a finish, a block's start): progress the first time only. */
  once(key: string): void {
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.progress();
  }

  /** The answer is complete ([DONE], message_stop): what follows is waited for only briefly. */
  completed(): void {
    this.once('complete');
    this.complete = true;
    this.recheck?.();
  }

  /**
   * Yields what `source` yields; when the answer makes no progress for `idleMs` of waiting on
   * the server, aborts the controller and throws a connection LlmError saying so. Time the
   * reader spends with a chunk is not the server's silence. An abort ends the wait at once.
   */
  async *watch<T>(source: AsyncIterable<T>): AsyncIterable<T> {
    const { idleMs, controller } = this.options;
    const iterator = source[Symbol.asyncIterator]();
    // One timer for the whole stream, not one per chunk (a fast stream has tens of thousands):
    // it looks again when it would run out.
    // Raced against each wait. A fresh promise per wait, never one for the whole stream: every
    // race leaves a reaction on a promise that outlives it, and each reaction holds the part it
    // resolved with — tens of thousands of parts kept until the end of the answer.
    let stoppedFor: 'idle' | 'aborted' | undefined;
    let wake: ((reason: 'idle' | 'aborted') => void) | undefined;
    const fire = (reason: 'idle' | 'aborted') => {
      stoppedFor ??= reason;
      wake?.(reason);
    };
    const stopped = () =>
      stoppedFor !== undefined
        ? Promise.resolve(stoppedFor)
        : new Promise<'idle' | 'aborted'>((resolve) => (wake = resolve));
    const unlink = onAbort(controller.signal, () => fire('aborted'));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const check = () => {
      const silent = this.silent();
      const limit = this.complete ? Math.min(idleMs, AFTER_COMPLETE_GRACE_MS) : idleMs;
      if (this.waitingSince !== undefined && silent >= limit) return fire('idle');
      const notice = this.options.silenceNoticeMs ?? DEFAULT_SILENCE_NOTICE_MS;
      if (this.begun && !this.noticed && this.waitingSince !== undefined && silent >= notice) {
        this.noticed = true;
        this.options.onSilence?.(silent);
      }
      // Before the answer has begun the notice is not due, but progress may begin it at any
      // moment: look again a notice's length later.
      const untilNotice = this.noticed ? Infinity : this.begun ? notice - silent : notice;
      timer = setTimeout(check, Math.max(1, Math.min(limit - silent, untilNotice)));
    };
    this.recheck = () => {
      clearTimeout(timer);
      check();
    };
    check();
    let finished = false;
    try {
      for (;;) {
        this.waitingSince = Date.now();
        const next = await Promise.race([iterator.next(), stopped()]);
        wake = undefined;
        this.silentBefore += Date.now() - this.waitingSince;
        this.waitingSince = undefined;
        if (next === 'aborted') throw abortError();
        // Complete, and the server keeps the body open: the answer stands, the body is let go.
        if (next === 'idle' && this.complete) return;
        if (next === 'idle') {
          controller.abort();
          throw new LlmError(
            `${this.options.serverLabel} sent nothing for ${formatSeconds(idleMs)} in the middle of its answer, so OpenAgent stopped waiting.`,
            'connection',
          );
        }
        if (next.done) {
          finished = true;
          return;
        }
        if (this.progressCount > (this.options.maxProgress ?? Infinity)) {
          controller.abort();
          throw new LlmError(
            `${this.options.serverLabel} sent far more than the answer it was asked for (over ${this.options.maxProgress} parts), so OpenAgent stopped it.`,
            'stream',
          );
        }
        // Other streams (and the editor) get the event loop between slices of this one's work.
        const turn = takeTurn();
        if (turn) await turn;
        yield next.value;
      }
    } finally {
      clearTimeout(timer);
      this.recheck = undefined;
      unlink();
      if (this.noticed) {
        this.noticed = false;
        this.options.onSilence?.(undefined);
      }
      // Stopped early (idle, aborted, a reader that broke off): release the source without waiting on it.
      if (!finished) void Promise.resolve(iterator.return?.()).catch(() => {});
    }
  }

  private silent(): number {
    return this.silentBefore + (this.waitingSince === undefined ? 0 : Date.now() - this.waitingSince);
  }
}

/**
 * Yields what `source` yields, counting every item as progress (a source of parsed events whose
 * every item is an answer's part); see IdleWatchdog.
 */
export async function* withIdleWatchdog<T>(
  source: AsyncIterable<T>,
  idleMs: number,
  controller: AbortController,
  serverLabel: string,
  isProgress: (item: T) => boolean = () => true,
): AsyncIterable<T> {
  const watchdog = new IdleWatchdog({ idleMs, controller, serverLabel });
  for await (const item of watchdog.watch(source)) {
    if (isProgress(item)) watchdog.progress();
    yield item;
  }
}

function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}
