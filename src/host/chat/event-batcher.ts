/**
 * Collects items and delivers them together about once per frame, so a fast token stream
 * becomes a few dozen posts per second instead of one post per token.
 */
export class Batcher<T> {
  private pending: T[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly deliver: (items: T[]) => void,
    private readonly intervalMs = 16,
  ) {}

  push(item: T): void {
    this.pending.push(item);
    this.timer ??= setTimeout(() => this.flush(), this.intervalMs);
  }

  /** Delivers what is pending now (before a reset, or on dispose). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const items = this.pending;
    this.pending = [];
    this.deliver(items);
  }

  /** Drops what is pending without delivering it. */
  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = [];
  }
}
