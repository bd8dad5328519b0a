import { setTimeout as delay } from 'node:timers/promises';

/**
 * The one poller of the test suite: calls `check` until it returns something other than undefined, or fails after
 * `timeoutMs` naming what it waited for (`what` may be a function, read at the end) (and the last error `check` threw, if any).
 */
export async function eventually<T>(what: string | (() => string), timeoutMs: number, check: () => Promise<T | undefined>, intervalMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const cause = lastError ? `: ${lastError instanceof Error ? lastError.message : JSON.stringify(lastError)}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}${cause}`);
    }
    await delay(intervalMs);
  }
}

/**
 * Waits, polling the clock, until the current window of `windowMs` (fixed windows aligned on the epoch, as rate
 * limits and UTC days are) has at least `neededMs` left, so that what happens in the next `neededMs` is counted in one
 * window.
 */
export async function awayFromWindowEnd(windowMs: number, neededMs: number): Promise<void> {
  await eventually(`${neededMs} ms left in the current ${windowMs} ms window`, neededMs + 1_000, () =>
    Promise.resolve(windowMs - (Date.now() % windowMs) >= neededMs ? true : undefined), 50);
}
