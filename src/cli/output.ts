/**
 * Where the CLI writes: the answer's text as it streams (stdout), status lines (tool calls,
 * notes) and errors. It remembers whether the cursor is at the start of a line, so a status
 * line after half a streamed sentence starts on a line of its own. While a model has not
 * answered yet it shows a life sign: a line counting the seconds on a terminal, a note now and
 * then (10 s, 30 s, then every minute) when the status stream is a file or a pipe. While the
 * user types a message to queue, output is held back (kept, in order) so their line stays whole.
 */
import type { Style } from './style';

/** When a non-terminal status stream hears that the model is still being waited for. */
const PIPED_NOTES_AT_SECONDS = [10, 30];
const PIPED_NOTES_EVERY_SECONDS = 60;

export class Output {
  private atLineStart = true;
  private waiting: { timer: ReturnType<typeof setInterval>; shown: boolean } | undefined;
  /** Output held back while the user types on the terminal, written in order when released. */
  private held: Array<() => void> | undefined;
  /** Blocks beside the answer (side answers) waiting for the streamed line to end. */
  private asides: string[] = [];

  constructor(
    /** The answer's text. */
    private readonly text: NodeJS.WritableStream,
    /** Status lines: stdout in the interactive session, stderr in one-shot mode (stdout keeps the answer alone). */
    private readonly status: NodeJS.WritableStream,
    private readonly errors: NodeJS.WritableStream,
    readonly style: Style,
    /**
     * Applied to everything written: every secret the product holds (HeldSecrets.redact) goes,
     * whatever printed it — an event, a setup error quoting a server, a warning.
     */
    private readonly redact: (text: string) => string = (text) => text,
  ) {}

  /** Streamed text, written as it comes. */
  write(raw: string): void {
    if (!raw) return;
    if (this.held) return void this.held.push(() => this.write(raw));
    const text = this.redact(raw);
    this.stopWaiting();
    // A side answer waiting goes in at the last line break of this piece.
    const cut = this.asides.length > 0 ? text.lastIndexOf('\n') + 1 : 0;
    if (cut > 0 && cut < text.length) {
      this.text.write(text.slice(0, cut));
      this.atLineStart = true;
      this.writeAsides();
      this.text.write(text.slice(cut));
      this.atLineStart = false;
      return;
    }
    this.text.write(text);
    this.atLineStart = text.endsWith('\n');
    this.writeAsides();
  }

  /**
   * A block beside the answer (a side question's): written at once at the start of a line,
   * else as soon as the line being streamed ends, so the agent's sentence stays whole.
   */
  aside(text: string): void {
    if (this.held) return void this.held.push(() => this.aside(text));
    this.asides.push(text);
    this.writeAsides();
  }

  private writeAsides(): void {
    if (!this.atLineStart || this.asides.length === 0) return;
    this.stopWaiting();
    for (const text of this.asides.splice(0)) this.status.write(`${this.redact(text)}\n`);
  }

  /** A status line of its own. */
  line(text = ''): void {
    if (this.held) return void this.held.push(() => this.line(text));
    this.stopWaiting();
    this.newline();
    this.status.write(`${this.redact(text)}\n`);
  }

  error(text: string): void {
    if (this.held) return void this.held.push(() => this.error(text));
    this.stopWaiting();
    this.newline();
    this.errors.write(`${this.style.red(this.redact(text))}\n`);
  }

  /** Ends a half-written line. */
  newline(): void {
    if (this.held) return void this.held.push(() => this.newline());
    if (this.atLineStart) return this.writeAsides();
    this.text.write('\n');
    this.atLineStart = true;
    this.writeAsides();
  }

  /**
   * Shows that `label` (e.g. "waiting for qwen3-coder") is in progress, with the seconds it has
   * taken (since `started`), until anything else is written. A function label words the
   * seconds itself ("… has sent nothing for 12 s").
   */
  startWaiting(
    label: string | ((seconds: number) => string),
    now: () => number = Date.now,
    started: number = now(),
  ): void {
    this.stopWaiting();
    const say = (seconds: number) => (typeof label === 'string' ? `${label} (${seconds} s)` : label(seconds));
    const live = Boolean((this.status as { isTTY?: boolean }).isTTY);
    let noted = false;
    // The life sign shares the answer's line on a terminal or when both go to one stream; a note
    // piped elsewhere (one-shot: stderr) must not add a line break to the answer (stdout).
    const sharesLine = live || this.status === this.text;
    const tick = () => {
      const waiting = this.waiting;
      if (!waiting) return;
      const seconds = Math.floor((now() - started) / 1000);
      if (this.held) return;
      if (live) {
        this.status.write(`\r\x1b[K${this.style.dim(`… ${say(seconds)}`)}`);
        waiting.shown = true;
      } else if (
        PIPED_NOTES_AT_SECONDS.includes(seconds) ||
        (seconds > 0 && seconds % PIPED_NOTES_EVERY_SECONDS === 0) ||
        // A pause already under way when it is noticed is said at once.
        (typeof label !== 'string' && !noted)
      ) {
        noted = true;
        if (sharesLine) this.newline();
        this.status.write(typeof label === 'string' ? `(still ${label}: ${seconds} s)\n` : `(${label(seconds)})\n`);
      }
    };
    if (sharesLine) this.newline();
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

  /**
   * Holds output back while the user types a line of their own; returns the release, which
   * writes what was held, in order, after the line the user ended.
   */
  hold(): () => void {
    if (this.held) return () => undefined;
    const waiting = this.waiting;
    // The life sign's line is the one the user now types on.
    if (waiting?.shown) {
      this.status.write('\r\x1b[K');
      waiting.shown = false;
    }
    this.newline();
    const held: Array<() => void> = [];
    this.held = held;
    return () => {
      if (this.held !== held) return;
      this.held = undefined;
      this.atLineStart = true;
      for (const write of held) write();
    };
  }

  /** Something else (a prompt the user answered) left the cursor at the start of a line. */
  markLineStart(): void {
    this.atLineStart = true;
  }
}
