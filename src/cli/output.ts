/**
 * Where the CLI writes: the answer's text as it streams (stdout), status lines (tool calls,
 * notes) and errors. It remembers whether the cursor is at the start of a line, so a status
 * line after half a streamed sentence starts on a line of its own. While a model has not
 * answered yet it shows a life sign: a line counting the seconds on a terminal, a note now and
 * then (10 s, 30 s, then every minute) when the status stream is a file or a pipe.
 */
import type { Style } from './style';

/** When a non-terminal status stream hears that the model is still being waited for. */
const PIPED_NOTES_AT_SECONDS = [10, 30];
const PIPED_NOTES_EVERY_SECONDS = 60;

export class Output {
  private atLineStart = true;
  private waiting: { timer: ReturnType<typeof setInterval>; shown: boolean } | undefined;

  constructor(
    /** The answer's text. */
    private readonly text: NodeJS.WritableStream,
    /** Status lines: stdout in the interactive session, stderr in one-shot mode (stdout keeps the answer alone). */
    private readonly status: NodeJS.WritableStream,
    private readonly errors: NodeJS.WritableStream,
    readonly style: Style,
  ) {}

  /** Streamed text, written as it comes. */
  write(text: string): void {
    if (!text) return;
    this.stopWaiting();
    this.text.write(text);
    this.atLineStart = text.endsWith('\n');
  }

  /** A status line of its own. */
  line(text = ''): void {
    this.stopWaiting();
    this.newline();
    this.status.write(`${text}\n`);
  }

  error(text: string): void {
    this.stopWaiting();
    this.newline();
    this.errors.write(`${this.style.red(text)}\n`);
  }

  /** Ends a half-written line. */
  newline(): void {
    if (this.atLineStart) return;
    this.text.write('\n');
    this.atLineStart = true;
  }

  /** Shows that `label` (e.g. "waiting for qwen3-coder") is in progress, with the seconds it has taken, until anything else is written. */
  startWaiting(label: string, now: () => number = Date.now): void {
    this.stopWaiting();
    const started = now();
    const live = Boolean((this.status as { isTTY?: boolean }).isTTY);
    const tick = () => {
      const waiting = this.waiting;
      if (!waiting) return;
      const seconds = Math.floor((now() - started) / 1000);
      if (live) {
        this.status.write(`\r\x1b[K${this.style.dim(`… ${label} (${seconds} s)`)}`);
        waiting.shown = true;
      } else if (
        PIPED_NOTES_AT_SECONDS.includes(seconds) ||
        (seconds > 0 && seconds % PIPED_NOTES_EVERY_SECONDS === 0)
      ) {
        this.newline();
        this.status.write(`(still ${label}: ${seconds} s)\n`);
      }
    };
    this.newline();
    this.waiting = { timer: setInterval(tick, 1000), shown: false };
    this.waiting.timer.unref?.();
    tick();
  }

  /** Ends the life sign (clearing its line on a terminal). */
  stopWaiting(): void {
    const waiting = this.waiting;
    if (!waiting) return;
    this.waiting = undefined;
    clearInterval(waiting.timer);
    if (waiting.shown) this.status.write('\r\x1b[K');
  }

  /** Something else (a prompt the user answered) left the cursor at the start of a line. */
  markLineStart(): void {
    this.atLineStart = true;
  }
}
