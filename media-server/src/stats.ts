/**
 * mediasoup's stats reports as protocol's RtcStats: what JSON carries of them (numbers, strings,
 * flags, nested records such as a transport's selected tuple), nothing left undefined.
 */
import type { RtcStats, RtcStatValue } from '@voice/protocol';
import { RTC_ERROR, RtcRequestError } from './errors.ts';

/** A mediasoup object that reports stats: a transport, producer or consumer. */
interface StatsSource {
  readonly closed: boolean;
  getStats(): Promise<readonly object[]>;
}

/**
 * The stats of `source`, called `what` in errors. An object that closes while the worker is asked
 * (the member left, the producer went) is a 404 like any unknown id, not a server error.
 */
export async function statsOf(source: StatsSource, what: string): Promise<RtcStats> {
  let stats: readonly object[];
  try {
    stats = await source.getStats();
  } catch (error) {
    if (source.closed) throw new RtcRequestError(RTC_ERROR.notFound, `${what} not found`);
    throw error;
  }
  return stats.map(statRecord);
}

function statRecord(entry: object): Record<string, RtcStatValue> {
  const record: Record<string, RtcStatValue> = {};
  for (const [key, value] of Object.entries(entry)) {
    const stat = statValue(value);
    if (stat !== undefined) record[key] = stat;
  }
  return record;
}

function statValue(value: unknown): RtcStatValue | undefined {
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return statRecord(value);
  return undefined;
}
