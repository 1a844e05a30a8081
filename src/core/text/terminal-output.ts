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

export function capOutput(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const dropped = text.length - maxChars;
  return `[… ${dropped} characters of earlier output omitted …]\n${text.slice(-maxChars)}`;
}

/**
 * Collects a command's output while it runs, keeping memory bounded on endless output: beyond
 * twice the cap the oldest chunks go (the cap applied at the end keeps the last part anyway).
 */
export class OutputCollector {
  private readonly chunks: string[] = [];
  private size = 0;

  constructor(private readonly maxChars: number) {}

  push(text: string): void {
    this.chunks.push(text);
    this.size += text.length;
    while (this.size > this.maxChars * 2 && this.chunks.length > 1) this.size -= this.chunks.shift()!.length;
  }

  /** The output as the model should see it: escapes stripped, capped. */
  result(): string {
    return capOutput(stripTerminalEscapes(this.chunks.join('')), this.maxChars);
  }
}
