/**
 * Terminal output as the model should see it: no escape sequences, normalised line ends,
 * and a size cap that keeps the end (where errors and exit summaries are).
 */

// OSC (ESC ] ... BEL | ESC \), CSI (ESC [ ... final byte), and two-byte ESC sequences.
// eslint-disable-next-line no-control-regex
const ESCAPES = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]/g;

export function stripTerminalEscapes(text: string): string {
  return text
    .replace(ESCAPES, '')
    .replace(/\r\n/g, '\n')
    .replace(/\r(?!\n)/g, '\n');
}

/** `alreadyDropped`: characters cut before `text` (counted in the note). */
export function capOutput(text: string, maxChars: number, alreadyDropped = 0): string {
  if (text.length <= maxChars && alreadyDropped === 0) return text;
  const dropped = alreadyDropped + Math.max(0, text.length - maxChars);
  return `[… ${dropped} characters of earlier output omitted …]\n${text.slice(-maxChars)}`;
}

/**
 * Collects a command's output while it runs, keeping memory bounded on endless output: at most
 * twice the cap is kept (the oldest text goes first, counted), and the cap applied at the end
 * keeps the last part.
 */
export class OutputCollector {
  private readonly chunks: string[] = [];
  private size = 0;
  private dropped = 0;

  constructor(private readonly maxChars: number) {}

  push(text: string): void {
    this.chunks.push(text);
    this.size += text.length;
    const keep = this.maxChars * 2;
    while (this.size > keep) {
      const first = this.chunks[0]!;
      const excess = Math.min(first.length, this.size - keep);
      if (excess === first.length) this.chunks.shift();
      else this.chunks[0] = first.slice(excess);
      this.size -= excess;
      this.dropped += excess;
    }
  }

  /** The output as the model should see it: escapes stripped, capped. */
  result(): string {
    return capOutput(stripTerminalEscapes(this.chunks.join('')), this.maxChars, this.dropped);
  }
}
