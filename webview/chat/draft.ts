/**
 * The composer's half-typed prompt, reported to the host a moment after the user stops typing
 * (the host keeps it for the chat that comes back after a reload). Only changes are reported:
 * the same text twice is one message.
 */
const PAUSE_MS = 250;

export class DraftKeeper {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private reported: string | undefined;

  constructor(
    private readonly read: () => string,
    private readonly report: (text: string) => void,
  ) {}

  /** The text changed: reported after a pause in typing. */
  changed(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.changedNow(), PAUSE_MS);
  }

  /** Reported at once (a prompt sent, the view hidden). */
  changedNow(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const text = this.read();
    if (text === this.reported) return;
    this.reported = text;
    this.report(text);
  }
}
