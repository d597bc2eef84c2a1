/**
 * Service level objectives: `--slo 'joinP95<3000,lossP95<2%,mosP05>3.8,heard>99%'` parsed into
 * targets, and a run's aggregates judged against them: each held or breached, with the value
 * measured and by how much.
 */
import { UsageError } from '../cli/errors.ts';

/** What a metric is measured in; `count` and `%` are both allowed for `failed`. */
export type SloUnit = 'ms' | '%' | 'MOS' | 'count';

/** The run's aggregates the SLOs read, by name; null when nothing was measured. */
export type Aggregates = Record<AggregateName, number | null>;

/** Every SLO metric, with the unit its threshold is read in. */
const METRIC_UNITS = {
  joinP50: 'ms',
  joinP95: 'ms',
  joinP99: 'ms',
  firstAudioP50: 'ms',
  firstAudioP95: 'ms',
  firstAudioP99: 'ms',
  stageP50: 'ms',
  stageP95: 'ms',
  lossP50: '%',
  lossP95: '%',
  jitterP50: 'ms',
  jitterP95: 'ms',
  rttP50: 'ms',
  rttP95: 'ms',
  mosP05: 'MOS',
  mosP50: 'MOS',
  heard: '%',
  failed: '%',
  concealedP95: '%',
} as const satisfies Record<string, SloUnit>;

export type SloMetric = keyof typeof METRIC_UNITS;
export const SLO_METRICS = Object.keys(METRIC_UNITS) as SloMetric[];

/** The aggregate names: the metrics, with `failed` both as a percent and as a count. */
export type AggregateName = Exclude<SloMetric, 'failed'> | 'failedPct' | 'failedCount';

export type SloOperator = '<' | '<=' | '>' | '>=';

/** One objective: `metric op threshold` (threshold in `unit`). */
export interface SloTarget {
  metric: SloMetric;
  op: SloOperator;
  threshold: number;
  unit: SloUnit;
}

/** One objective judged. `by` is how far past the threshold (breached) or short of it (held). */
export interface SloVerdict extends SloTarget {
  actual: number | null;
  held: boolean;
  by: number | null;
  /** One line for the terminal and the report, e.g. 'lossP95 < 2%: 3.4%, breached by 1.4%'. */
  line: string;
}

const ITEM = /^([A-Za-z0-9]+)\s*(<=|>=|<|>)\s*(\d+(?:\.\d+)?)\s*(ms|s|%)?$/;

/** 'joinP95<3000,lossP95<2%' → targets; '' → none. Throws UsageError naming the bad item. */
export function parseSlo(text: string): SloTarget[] {
  if (text.trim() === '') return [];
  const seen = new Set<string>();
  return text.split(',').map((raw) => {
    const item = raw.trim();
    const match = ITEM.exec(item);
    if (!match) throw new UsageError(`--slo '${item}' is not metric<value (e.g. joinP95<3000)`);
    const [, name = '', op = '<', number = '', suffix] = match;
    if (!(name in METRIC_UNITS))
      throw new UsageError(`--slo '${item}': unknown metric ${name} (one of ${SLO_METRICS.join(', ')})`);
    const metric = name as SloMetric;
    const target = { metric, op: op as SloOperator, ...threshold(item, metric, Number(number), suffix) };
    const key = `${aggregateOf(target)}${op[0]}`;
    if (seen.has(key)) throw new UsageError(`--slo gives ${metric} ${op[0]} twice`);
    seen.add(key);
    return target;
  });
}

/** The threshold in the metric's unit, from the number and its optional suffix. */
function threshold(item: string, metric: SloMetric, value: number, suffix: string | undefined) {
  const unit: SloUnit = METRIC_UNITS[metric];
  if (metric === 'failed') return { threshold: value, unit: suffix === '%' ? '%' : 'count' } as const;
  const fits =
    suffix === undefined ||
    (unit === 'ms' && (suffix === 'ms' || suffix === 's')) ||
    (unit === '%' && suffix === '%');
  if (!fits) throw new UsageError(`--slo '${item}': ${metric} is measured in ${unit}, not ${suffix}`);
  if (unit === '%' && value > 100) throw new UsageError(`--slo '${item}': a percent above 100`);
  if (unit === 'MOS' && (value < 1 || value > 5)) throw new UsageError(`--slo '${item}': MOS runs 1–5`);
  return { threshold: suffix === 's' ? value * 1000 : value, unit } as const;
}

/** Which aggregate a target reads. */
export function aggregateOf(target: Pick<SloTarget, 'metric' | 'unit'>): AggregateName {
  if (target.metric === 'failed') return target.unit === '%' ? 'failedPct' : 'failedCount';
  return target.metric;
}

/** A target as written back: 'lossP95 < 2%'. */
export function formatTarget(target: SloTarget): string {
  return `${target.metric} ${target.op} ${formatValue(target.threshold, target.unit)}`;
}

/** A value with its unit, rounded for people: '2410 ms', '3.4%', 'MOS 3.82', '2'. */
export function formatValue(value: number, unit: SloUnit): string {
  if (unit === 'ms') return `${Math.round(value)} ms`;
  if (unit === '%') return `${round(value, 2)}%`;
  if (unit === 'MOS') return round(value, 2).toFixed(2);
  return String(round(value, 2));
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Judges each target against the aggregates; a metric nothing measured is breached. */
export function judge(targets: SloTarget[], aggregates: Aggregates): SloVerdict[] {
  return targets.map((target) => {
    const actual = aggregates[aggregateOf(target)];
    const head = formatTarget(target);
    if (actual === null)
      return { ...target, actual, held: false, by: null, line: `${head}: nothing measured, breached` };
    const below = target.op === '<' || target.op === '<=';
    const strict = target.op === '<' || target.op === '>';
    const past = below ? actual - target.threshold : target.threshold - actual;
    const held = strict ? past < 0 : past <= 0;
    const by = Math.abs(past);
    const value = formatValue(actual, target.unit);
    const amount = formatValue(by, target.unit === 'MOS' ? 'count' : target.unit);
    const line = held
      ? `${head}: ${value}, held (${amount} to spare)`
      : `${head}: ${value}, breached by ${amount}`;
    return { ...target, actual, held, by, line };
  });
}
