/**
 * A line typed on the terminal while the agent works: the first key starts it on a line of its
 * own (`queue› `), the agent's output is held back while it is typed (so the line stays whole),
 * and Enter hands it over — the REPL queues it. Backspace and Ctrl+U edit it; Escape drops it.
 * Anything that ends it otherwise (a question, Ctrl+C, the run ending) takes its text along,
 * so nothing typed is lost.
 */
import type { Output } from './output';

export const TYPEAHEAD_PROMPT = 'queue› ';

type KeyPress = { name?: string; ctrl?: boolean; meta?: boolean; sequence?: string };

export class Typeahead {
  private line: { text: string; release: () => void } | undefined;

  constructor(
    private readonly terminal: NodeJS.WritableStream,
    private readonly output: Output,
  ) {}

  /** Starts (or restarts, with `text` already typed) a line. */
  start(text = ''): void {
    if (this.line) return;
    const release = this.output.hold();
    this.line = { text, release };
    this.terminal.write(`${this.output.style.dim(TYPEAHEAD_PROMPT)}${text}`);
  }

  /** One key; returns the line when Enter ends it. */
  key(text: string | undefined, key: KeyPress | undefined): string | undefined {
    const name = key?.name;
    if (name === 'return' || name === 'enter') {
      if (!this.line) return undefined;
      const typed = this.end('\n');
      return typed.trim() ? typed : undefined;
    }
    if (name === 'escape') {
      this.end('\r\x1b[K');
      return undefined;
    }
    if (!this.line && !isPrintable(text, key)) return undefined;
    if (name === 'backspace') {
      const line = this.line!;
      const chars = [...line.text];
      if (chars.pop() === undefined) return undefined;
      line.text = chars.join('');
      this.terminal.write('\b \b');
      return undefined;
    }
    if (key?.ctrl && name === 'u') {
      this.line!.text = '';
      this.terminal.write(`\r\x1b[K${this.output.style.dim(TYPEAHEAD_PROMPT)}`);
      return undefined;
    }
    if (!isPrintable(text, key)) return undefined;
    this.start();
    this.line!.text += text;
    this.terminal.write(text!);
    return undefined;
  }

  /** Ends the line without handing it over (its screen line cleared); returns what was typed. */
  suspend(): string {
    if (!this.line) return '';
    return this.end('\r\x1b[K');
  }

  private end(finish: string): string {
    const line = this.line!;
    this.line = undefined;
    this.terminal.write(finish);
    this.output.markLineStart();
    line.release();
    return line.text;
  }
}

/** A key that types text (not a control or navigation key). */
function isPrintable(text: string | undefined, key: KeyPress | undefined): text is string {
  if (!text || key?.ctrl || key?.meta) return false;
  // Control characters (and escape sequences such as arrow keys) type nothing.
  return ![...text].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f);
}
