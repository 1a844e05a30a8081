/**
 * A stream that goes quiet must not hang the agent. The SDKs' timeouts stop counting once the
 * response headers arrive, so a server that freezes mid-answer (a stuck GPU, a suspended
 * process, a dead proxy keeping the socket open) would be waited on for many minutes. The
 * watchdog ends the call when the answer has made no progress for `idleMs`, as a connection
 * problem that names the server.
 *
 * Progress, not bytes: a server (or a proxy in front of it) that sends keep-alive comments,
 * pings or empty deltas keeps the socket busy while the answer stands still, and must not keep
 * the agent waiting forever. The reader of the stream says what progress is (a text or
 * reasoning token, a tool-call fragment, a usage or finish record) by calling `progress()`.
 *
 * Once the answer has begun, a pause of `silenceNoticeMs` is told to `onSilence` (the chat and
 * the CLI say that the model has sent nothing for N s), and the end of the pause too.
 */
import { abortError, onAbort } from '../abort';
import { LlmError } from './llm-client';

export { linkedAbort } from '../abort';

/** How long a stream may go without progress by default. Generous: a model on a CPU can pause long between tokens under load. */
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 120_000;
/** How long an answer may pause before the user is told. */
export const DEFAULT_SILENCE_NOTICE_MS = 10_000;

export interface IdleWatchdogOptions {
  idleMs: number;
  /** Aborted when the watchdog gives up (closing the connection); its abort also ends the wait. */
  controller: AbortController;
  /** The server, as messages name it. */
  serverLabel: string;
  /** Told the pause so far (ms) once the answer, begun, has paused this long; undefined when it goes on. */
  onSilence?: (silentMs: number | undefined) => void;
  silenceNoticeMs?: number;
}

export class IdleWatchdog {
  /** Time spent waiting on the server since the last progress, in earlier waits. */
  private silentBefore = 0;
  /** When the current wait on the server began (undefined: the reader has a chunk in hand). */
  private waitingSince: number | undefined;
  private begun = false;
  private noticed = false;

  constructor(private readonly options: IdleWatchdogOptions) {}

  /** The answer moved on: a token, a tool-call fragment, a usage or finish record. */
  progress(): void {
    this.silentBefore = 0;
    if (this.waitingSince !== undefined) this.waitingSince = Date.now();
    this.begun = true;
    if (this.noticed) {
      this.noticed = false;
      this.options.onSilence?.(undefined);
    }
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
    let fire: (reason: 'idle' | 'aborted') => void = () => {};
    const stopped = new Promise<'idle' | 'aborted'>((resolve) => (fire = resolve));
    const unlink = onAbort(controller.signal, () => fire('aborted'));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const check = () => {
      const silent = this.silent();
      if (this.waitingSince !== undefined && silent >= idleMs) return fire('idle');
      const notice = this.options.silenceNoticeMs ?? DEFAULT_SILENCE_NOTICE_MS;
      if (this.begun && !this.noticed && this.waitingSince !== undefined && silent >= notice) {
        this.noticed = true;
        this.options.onSilence?.(silent);
      }
      // Before the answer has begun the notice is not due, but progress may begin it at any
      // moment: look again a notice's length later.
      const untilNotice = this.noticed ? Infinity : this.begun ? notice - silent : notice;
      timer = setTimeout(check, Math.max(1, Math.min(idleMs - silent, untilNotice)));
    };
    check();
    let finished = false;
    try {
      for (;;) {
        this.waitingSince = Date.now();
        const next = await Promise.race([iterator.next(), stopped]);
        this.silentBefore += Date.now() - this.waitingSince;
        this.waitingSince = undefined;
        if (next === 'aborted') throw abortError();
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
        yield next.value;
      }
    } finally {
      clearTimeout(timer);
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
