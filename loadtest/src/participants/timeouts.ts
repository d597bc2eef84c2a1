/** Bounds on page work: a starved or crashed renderer must not stall the run or its clean-up. */

/** `promise`, or `fallback` once `ms` passed without it settling (its late result is dropped). */
export function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  return Promise.race([promise.catch(() => fallback), late]).finally(() => clearTimeout(timer));
}
