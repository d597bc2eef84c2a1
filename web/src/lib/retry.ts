/** Retries with doubling delays, and a concurrency cap: translation files (I18N_LOAD), the session restore (RETRY). */

/** Retry policy: `retries` more attempts after the first, the delay doubling from `delayMs`. */
export interface RetryPolicy {
  retries: number;
  delayMs: number;
  /** Which failures are worth another attempt; all of them when absent. */
  retryIf?: (error: unknown) => boolean;
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function withRetry<T>(task: () => Promise<T>, policy: RetryPolicy, sleep = wait): Promise<T> {
  let delay = policy.delayMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await task();
    } catch (error) {
      if (attempt >= policy.retries || (policy.retryIf && !policy.retryIf(error))) throw error;
      await sleep(delay);
      delay *= 2;
    }
  }
}

/** Runs at most `limit` tasks at once; the rest wait their turn in order. */
export function createLimiter(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const queue: (() => void)[] = [];
  const next = () => {
    active--;
    queue.shift()?.();
  };
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= limit) await new Promise<void>((resolve) => queue.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      next();
    }
  };
}
