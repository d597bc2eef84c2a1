/** The little statistics the summary needs: nearest-rank percentiles and counters that may restart. */

/** Nearest-rank percentile `p` (0–100) of `values` (any order); null for none. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] as number;
}

/**
 * How much a cumulative counter grew over `values`, read in order from zero. A drop means the
 * counter restarted (a new receiver after a rejoin): what it shows then is all new.
 */
export function counterIncrease(values: readonly number[]): number {
  let total = 0;
  let previous = 0;
  for (const value of values) {
    total += value >= previous ? value - previous : value;
    previous = value;
  }
  return total;
}

/** The values that are numbers. */
export const numbers = (values: readonly (number | null | undefined)[]): number[] =>
  values.filter((value): value is number => typeof value === 'number' && Number.isFinite(value));
