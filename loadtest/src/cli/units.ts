/**
 * The value syntaxes of the flags: durations ('120s', '2m', '500ms'), percents ('5%'), rates
 * ('128kbit', '1mbit'), whole numbers and URLs. Each parser takes the flag's name so that its
 * UsageError names what was wrong in one line.
 */
import { UsageError } from './errors.ts';

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const RATE_UNITS_KBIT: Record<string, number> = { bit: 0.001, kbit: 1, mbit: 1000, gbit: 1_000_000 };

/** '120s', '2m', '500ms', '1.5h' → milliseconds (> 0). */
export function parseDuration(flag: string, text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text.trim());
  const ms = match ? Number(match[1]) * (DURATION_UNITS_MS[match[2] as string] as number) : Number.NaN;
  if (!(ms > 0)) throw new UsageError(`${flag} '${text}' is not a duration (use 120s, 2m or 500ms)`);
  return Math.round(ms);
}

/** '5%' or '5' → 5, between 0 and 100. */
export function parsePercent(flag: string, text: string): number {
  const match = /^(\d+(?:\.\d+)?)%?$/.exec(text.trim());
  const value = match ? Number(match[1]) : Number.NaN;
  if (!(value >= 0 && value <= 100)) throw new UsageError(`${flag} '${text}' is not a percent (0–100%)`);
  return value;
}

/** '128kbit', '1mbit', '500bit' → kbit/s (> 0). */
export function parseRate(flag: string, text: string): number {
  const match = /^(\d+(?:\.\d+)?)(bit|kbit|mbit|gbit)$/i.exec(text.trim());
  const unit = match?.[2]?.toLowerCase() as string;
  const kbit = match ? Number(match[1]) * (RATE_UNITS_KBIT[unit] as number) : Number.NaN;
  if (!(kbit > 0)) throw new UsageError(`${flag} '${text}' is not a rate (use 128kbit or 1mbit)`);
  return kbit;
}

/** A whole number of at least `min`. */
export function parseWhole(flag: string, text: string, min: number): number {
  if (!/^\d+$/.test(text.trim())) throw new UsageError(`${flag} '${text}' is not a whole number`);
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new UsageError(`${flag} '${text}' is too large`);
  if (value < min) throw new UsageError(`${flag} must be at least ${min} (got ${value})`);
  return value;
}

/** '5/s', '0.5/s' or '5' → arrivals per second (> 0). */
export function parseRamp(flag: string, text: string): number {
  const match = /^(\d+(?:\.\d+)?)(?:\/s)?$/.exec(text.trim());
  const value = match ? Number(match[1]) : Number.NaN;
  if (!(value > 0)) throw new UsageError(`${flag} '${text}' is not a rate of joins (use 5/s)`);
  return value;
}

/** An http(s) URL with a host, without its trailing slash. */
export function parseUrl(flag: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${flag} '${text}' is not a URL (use http://host:port)`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname)
    throw new UsageError(`${flag} '${text}' is not an http(s) URL`);
  if (url.search || url.hash) throw new UsageError(`${flag} '${text}' must not carry a query or fragment`);
  return url.href.replace(/\/+$/, '');
}
