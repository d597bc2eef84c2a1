/** The run's figures as people read them, in order, in the report and (the shorter list) on the terminal. */
import { type AggregateName, type Aggregates, formatValue, type SloUnit } from '../model/slo.ts';

interface Figure {
  name: AggregateName;
  label: string;
  unit: SloUnit;
  /** Also in the terminal's summary table (which stays short). */
  terminal: boolean;
}

const FIGURES: Figure[] = [
  { name: 'joinP50', label: 'join p50', unit: 'ms', terminal: true },
  { name: 'joinP95', label: 'join p95', unit: 'ms', terminal: true },
  { name: 'joinP99', label: 'join p99', unit: 'ms', terminal: false },
  { name: 'firstAudioP50', label: 'first audio p50', unit: 'ms', terminal: false },
  { name: 'firstAudioP95', label: 'first audio p95', unit: 'ms', terminal: true },
  { name: 'stageP95', label: 'hand → on stage p95', unit: 'ms', terminal: false },
  { name: 'lossP50', label: 'loss p50', unit: '%', terminal: false },
  { name: 'lossP95', label: 'loss p95', unit: '%', terminal: true },
  { name: 'jitterP95', label: 'jitter p95', unit: 'ms', terminal: true },
  { name: 'rttP95', label: 'RTT p95', unit: 'ms', terminal: true },
  { name: 'concealedP95', label: 'concealed p95', unit: '%', terminal: true },
  { name: 'mosP05', label: 'MOS p05', unit: 'MOS', terminal: true },
  { name: 'mosP50', label: 'MOS p50', unit: 'MOS', terminal: true },
  { name: 'heard', label: 'heard', unit: '%', terminal: true },
  { name: 'failedCount', label: 'failed', unit: 'count', terminal: true },
];

/** [label, value with its unit ('–' when nothing was measured)] for each figure shown `where`. */
export function figureRows(aggregates: Aggregates, where: 'report' | 'terminal'): Array<[string, string]> {
  return FIGURES.filter((figure) => where === 'report' || figure.terminal).map((figure) => {
    const value = aggregates[figure.name];
    return [figure.label, value === null ? '–' : formatValue(value, figure.unit)];
  });
}
