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

/** The fields of a text delta that merging keeps: a run of deltas from one agent becomes one. */
interface TextDeltaLike {
  type: string;
  agentId: string;
  conversationId: string;
  text?: string;
}

/**
 * Merges each run of consecutive text deltas of one agent into a single delta (carrying the
 * last one's sequence number and time), so a batch of 200 one-token deltas costs one event
 * envelope instead of 200: the bytes posted for streamed text stay close to the text itself.
 */
export function coalesceTextDeltas<T extends TextDeltaLike>(events: readonly T[]): T[] {
  const merged: T[] = [];
  let run: { first: T; texts: string[]; last: T } | undefined;
  const close = () => {
    if (!run) return;
    merged.push(run.texts.length === 1 ? run.first : { ...run.last, text: run.texts.join('') });
    run = undefined;
  };
  for (const event of events) {
    if (event.type !== 'text_delta') {
      close();
      merged.push(event);
    } else if (run && run.last.agentId === event.agentId && run.last.conversationId === event.conversationId) {
      run.texts.push(event.text ?? '');
      run.last = event;
    } else {
      close();
      run = { first: event, texts: [event.text ?? ''], last: event };
    }
  }
  close();
  return merged;
}
