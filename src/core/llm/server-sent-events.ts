/**
 * Reads a text/event-stream body in linear time, one event at a time, and gives the event loop
 * back every few milliseconds. A fast server can deliver tens of thousands of small events in
 * one burst; consumed in a single run of microtasks they would freeze the extension host.
 */
export interface ServerSentEvent {
  event: string | undefined;
  data: string;
}

/**
 * Yields to the macrotask queue once `budgetMs` of uninterrupted work has passed. Time spent
 * waiting for the network already gives the event loop back, so the clock restarts whenever a
 * macrotask boundary has passed (detected with a setImmediate that marks it).
 */
export class TimeSlicer {
  private sliceStart = performance.now();
  private boundaryPassed = false;
  private armed = false;

  constructor(private readonly budgetMs = 4) {}

  /** True when the current slice has used its budget; checked synchronously, so the fast path costs no await. */
  due(): boolean {
    if (this.boundaryPassed) {
      this.boundaryPassed = false;
      this.sliceStart = performance.now();
    }
    if (!this.armed) this.arm();
    return performance.now() - this.sliceStart >= this.budgetMs;
  }

  /** Gives the event loop back, then starts a new slice. */
  async yield(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.boundaryPassed = false;
    this.sliceStart = performance.now();
  }

  private arm(): void {
    this.armed = true;
    setImmediate(() => {
      this.armed = false;
      this.boundaryPassed = true;
    });
  }
}

export async function* readServerSentEvents(
  body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>,
  slicer = new TimeSlicer(),
): AsyncIterable<ServerSentEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event: string | undefined;
  let data: string[] = [];
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let end = buffer.indexOf('\n', start); end >= 0; end = buffer.indexOf('\n', start)) {
      const line = buffer.charCodeAt(end - 1) === 13 ? buffer.slice(start, end - 1) : buffer.slice(start, end);
      start = end + 1;
      if (line === '') {
        if (data.length > 0) {
          yield { event, data: data.join('\n') };
          if (slicer.due()) await slicer.yield();
        }
        event = undefined;
        data = [];
      } else if (line.startsWith('data:')) {
        data.push(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
      } else if (line.startsWith('event:')) {
        event = line.slice(6).trim();
      }
      // Comments (":") and other fields (id, retry) carry nothing for us.
    }
    buffer = buffer.slice(start);
  }
  buffer += decoder.decode();
  if (buffer.startsWith('data:')) data.push(buffer.slice(5).trimStart());
  if (data.length > 0) yield { event, data: data.join('\n') };
}
