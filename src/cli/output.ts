/**
 * Where the CLI writes: the answer's text as it streams (stdout), status lines (tool calls,
 * notes) and errors. It remembers whether the cursor is at the start of a line, so a status
 * line after half a streamed sentence starts on a line of its own.
 */
import type { Style } from './style';

export class Output {
  private atLineStart = true;

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
    this.text.write(text);
    this.atLineStart = text.endsWith('\n');
  }

  /** A status line of its own. */
  line(text = ''): void {
    this.newline();
    this.status.write(`${text}\n`);
  }

  error(text: string): void {
    this.newline();
    this.errors.write(`${this.style.red(text)}\n`);
  }

  /** Ends a half-written line. */
  newline(): void {
    if (this.atLineStart) return;
    this.text.write('\n');
    this.atLineStart = true;
  }

  /** Something else (a prompt the user answered) left the cursor at the start of a line. */
  markLineStart(): void {
    this.atLineStart = true;
  }
}
