/**
 * A stream that goes quiet must not hang the agent. The SDKs' timeouts stop counting once the
 * response headers arrive, so a server that freezes mid-answer (a stuck GPU, a suspended
 * process, a dead proxy keeping the socket open) would be waited on for many minutes. The
 * watchdog ends the call when no data has arrived for `idleMs`, as a connection problem that
 * names the server.
 */
import { LlmError } from './llm-client';

/** How long a stream may go without data by default. Generous: a model on a CPU can pause long between tokens under load. */
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 120_000;

/**
 * The request's signal, linked to one the watchdog can abort: aborting it closes the
 * connection, so a frozen server's socket is not left open.
 */
export function linkedAbort(signal: AbortSignal | undefined): { controller: AbortController; unlink: () => void } {
  const controller = new AbortController();
  if (!signal) return { controller, unlink: () => {} };
  const forward = () => controller.abort(signal.reason);
  if (signal.aborted) forward();
  else signal.addEventListener('abort', forward, { once: true });
  return { controller, unlink: () => signal.removeEventListener('abort', forward) };
}

/**
 * Yields what `source` yields; when nothing comes for `idleMs`, aborts `controller` and throws a
 * connection LlmError saying so.
 */
export async function* withIdleWatchdog<T>(
  source: AsyncIterable<T>,
  idleMs: number,
  controller: AbortController,
  serverLabel: string,
): AsyncIterable<T> {
  const iterator = source[Symbol.asyncIterator]();
  // One timer for the whole stream, not one per chunk (a fast stream has tens of thousands):
  // only the time spent waiting on the server counts, and the timer looks again when it would
  // run out. Time the consumer spends with a chunk is not the server's silence.
  let waitingSince: number | undefined;
  let fire: () => void = () => {};
  const idle = new Promise<'idle'>((resolve) => (fire = () => resolve('idle')));
  const check = () => {
    const quiet = waitingSince === undefined ? 0 : Date.now() - waitingSince;
    if (quiet >= idleMs) fire();
    else timer = setTimeout(check, idleMs - quiet);
  };
  let timer = setTimeout(check, idleMs);
  let finished = false;
  try {
    for (;;) {
      waitingSince = Date.now();
      const next = await Promise.race([iterator.next(), idle]);
      waitingSince = undefined;
      if (next === 'idle') {
        controller.abort();
        throw new LlmError(
          `${serverLabel} sent nothing for ${formatSeconds(idleMs)} in the middle of its answer, so OpenAgent stopped waiting.`,
          'connection',
        );
      }
      if (next.done) {
        finished = true;
        return;
      }
      yield next.value;
    }
  } finally {
    clearTimeout(timer);
    // Stopped early (idle, a consumer that broke off): release the source without waiting on it.
    if (!finished) void Promise.resolve(iterator.return?.()).catch(() => {});
  }
}

function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}
