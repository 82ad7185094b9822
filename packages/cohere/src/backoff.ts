/**
 * Waits `ms` between two attempts, or less: a caller's abort ends the wait at once (callCohere then
 * throws ABORTED instead of trying again). Its own module, so a test can stand in for the clock.
 */
export function backoff(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
