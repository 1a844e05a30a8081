/**
 * How long the editor tests wait. Every wait is for a condition — an element, a file, an event,
 * a request — never a fixed sleep, and its deadline is generous: a deadline only costs time when
 * something is broken, while a short one fails a correct run on a loaded machine (CI machines
 * are shared and slow). Used by the launchers, the e2e helpers and, bundled, by the suite that
 * runs inside the extension host.
 *
 * OPENAGENT_TEST_PATIENCE_MS sets the deadline of one wait (default 3 minutes), e.g. shorter
 * while debugging a failure; a test gets several of them.
 */

export const PATIENCE_MS = Number(process.env.OPENAGENT_TEST_PATIENCE_MS) || 3 * 60_000;

/** A mocha test's (or hook's) timeout: room for a few waits that each take long. */
export const TEST_TIMEOUT_MS = 4 * PATIENCE_MS;

/**
 * Polls `check` until it returns something other than false or undefined, and returns that;
 * throws after `timeoutMs` naming `what` (a function is asked at that moment, for details).
 */
export async function waitUntil<T>(
  check: () => T | false | undefined | Promise<T | false | undefined>,
  what: string | (() => string),
  timeoutMs = PATIENCE_MS,
  pollMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== false && value !== undefined) return value;
    if (Date.now() >= deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
