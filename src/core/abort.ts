/**
 * Stopping a wait at once. Every wait on the network or a child process takes the run's
 * AbortSignal, and these helpers keep the two ways a signal is commonly dropped from happening:
 * a listener added to a signal that is already aborted never fires (`addEventListener('abort')`
 * does not replay), and a wait that swallows its errors (`.catch(() => undefined)`, a probe that
 * answers "unknown") turns a Stop into a shrug, after which the next wait starts as if nothing
 * had happened. A Stop pressed between two waits must stop the second one too.
 */

/** The error a wait ends with when it was stopped: a cancellation, not a failure. */
export function abortError(): Error {
  const error = new Error('The request was cancelled.');
  error.name = 'AbortError';
  return error;
}

/**
 * Calls `listener` once when `signal` aborts — at once when it already has. Returns what removes
 * the listener (call it when the work is over: long-lived signals must not collect listeners).
 */
export function onAbort(signal: AbortSignal | undefined, listener: () => void): () => void {
  if (!signal) return () => {};
  if (signal.aborted) {
    listener();
    return () => {};
  }
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}

/**
 * A controller of its own, aborted whenever `signal` is (already, or later): a call gets its
 * own signal, so one long-lived signal does not collect a listener per call.
 */
export function linkedAbort(signal: AbortSignal | undefined): { controller: AbortController; unlink: () => void } {
  const controller = new AbortController();
  const unlink = onAbort(signal, () => controller.abort(signal?.reason));
  return { controller, unlink };
}

/** Throws the cancellation when `signal` has aborted: between two waits, the second is not started. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError();
}

/**
 * Settles as `work` does, or rejects with the cancellation the moment `signal` aborts, whatever
 * `work` is doing (a probe that swallows its own abort, an SDK that does not listen). The work
 * is left to end on its own; its outcome is then ignored.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(abortError());
  }
  return new Promise<T>((resolve, reject) => {
    const unlink = onAbort(signal, () => reject(abortError()));
    work.then(
      (value) => {
        unlink();
        resolve(value);
      },
      (error: unknown) => {
        unlink();
        reject(error);
      },
    );
  });
}

/** True for the cancellation (ours, the SDKs', fetch's). */
export function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'APIUserAbortError');
}
