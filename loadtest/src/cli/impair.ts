/**
 * `--impair 'loss=5%,delay=80ms,jitter=20ms,rate=128kbit'` and `--impair-share 20%` (or a count of
 * participants, `--impair-share 2`): which network impairment, and for how many participants.
 */
import type { ImpairSpec } from '../results/types.ts';
import { UsageError } from './errors.ts';
import { parseDuration, parsePercent, parseRate } from './units.ts';

/** The share of participants that run impaired: a percent of them, or a count. */
export type ImpairShare = { percent: number } | { count: number };

/** The delay keys accept 0ms (a jitter around no added delay). */
function parseDelay(flag: string, text: string): number {
  return /^0+(ms|s)?$/.test(text.trim()) ? 0 : parseDuration(flag, text);
}

const KEYS: Record<string, (flag: string, text: string, spec: ImpairSpec) => void> = {
  loss: (flag, text, spec) => {
    spec.lossPct = parsePercent(flag, text);
  },
  delay: (flag, text, spec) => {
    spec.delayMs = parseDelay(flag, text);
  },
  jitter: (flag, text, spec) => {
    spec.jitterMs = parseDelay(flag, text);
  },
  rate: (flag, text, spec) => {
    spec.rateKbit = parseRate(flag, text);
  },
};

/** 'loss=5%,delay=80ms,jitter=20ms,rate=128kbit' → ImpairSpec (at least one key). */
export function parseImpair(text: string): ImpairSpec {
  const spec: ImpairSpec = {};
  const seen = new Set<string>();
  for (const item of text.split(',')) {
    const [key = '', value, ...rest] = item.trim().split('=');
    const parse = KEYS[key];
    if (!parse || value === undefined || value === '' || rest.length > 0)
      throw new UsageError(
        `--impair '${item.trim()}' is not one of loss=N%, delay=Nms, jitter=Nms, rate=Nkbit`,
      );
    if (seen.has(key)) throw new UsageError(`--impair gives ${key} twice`);
    seen.add(key);
    parse(`--impair ${key}`, value, spec);
  }
  return spec;
}

/** '20%' → { percent: 20 }; '2' → { count: 2 }. */
export function parseImpairShare(text: string): ImpairShare {
  const trimmed = text.trim();
  if (trimmed.endsWith('%')) {
    const percent = parsePercent('--impair-share', trimmed);
    if (percent === 0) throw new UsageError('--impair-share must be more than 0%');
    return { percent };
  }
  if (!/^\d+$/.test(trimmed) || Number(trimmed) < 1)
    throw new UsageError(`--impair-share '${text}' is neither a percent (20%) nor a count of participants`);
  return { count: Number(trimmed) };
}

/** How many of `participants` run impaired (a percent rounds up, so 20% of 3 is 1). */
export function impairedCount(share: ImpairShare, participants: number): number {
  if ('count' in share) return Math.min(share.count, participants);
  return Math.min(participants, Math.ceil((participants * share.percent) / 100 - 1e-9));
}
