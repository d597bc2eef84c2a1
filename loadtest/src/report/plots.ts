/** The report's charts, drawn from a run's summary: one SVG each, the same in the HTML and the PNGs. */

import { numbers } from '../model/stats.ts';
import type { RunSummary } from '../results/summarize.ts';
import { GENERATOR_CPU_LIMIT_PCT } from '../results/summarize.ts';
import { histogram, type LineSeries, lineChart, type Plot } from './svg.ts';

const P50_COLOR = '#3b6fc4';
const P95_COLOR = '#d0463c';
const SHARD_COLORS = ['#3b6fc4', '#2e9e5b', '#d08a1c', '#8e44ad', '#16a2b8', '#c0392b', '#7f8c8d', '#e84393'];

function bands(points: RunSummary['series']['lossPct']): LineSeries[] {
  return [
    { name: 'p50', color: P50_COLOR, points: points.map((point) => [point.t, point.p50]) },
    { name: 'p95', color: P95_COLOR, points: points.map((point) => [point.t, point.p95]) },
  ];
}

/** One line per generator (shard), reading `value` of its samples. */
function perShard(summary: RunSummary, value: (point: RunSummary['series']['generator'][number]) => number) {
  const shards = [...new Set(summary.series.generator.map((point) => point.shard))].sort((a, b) => a - b);
  return shards.map(
    (shard, i): LineSeries => ({
      name: shards.length > 1 ? `generator ${shard}` : 'generator',
      color: SHARD_COLORS[i % SHARD_COLORS.length] as string,
      points: summary.series.generator
        .filter((point) => point.shard === shard)
        .map((point) => [point.t, value(point)]),
    }),
  );
}

/** Every chart of the report, in the order it shows them. */
export function buildPlots(summary: RunSummary): Plot[] {
  const cpu = perShard(summary, (point) => point.cpuPct);
  const times = summary.series.generator.map((point) => point.t);
  if (times.length > 0)
    cpu.push({
      name: `${GENERATOR_CPU_LIMIT_PCT}% limit`,
      color: '#999',
      dashed: true,
      points: [
        [Math.min(...times), GENERATOR_CPU_LIMIT_PCT],
        [Math.max(...times), GENERATOR_CPU_LIMIT_PCT],
      ],
    });
  return [
    histogram(numbers(summary.participants.map((participant) => participant.joinMs)), {
      id: 'join-times',
      title: summary.kind === 'calls' ? 'Accept → connected (ms)' : 'Join click → in the room (ms)',
      xLabel: 'ms',
    }),
    lineChart(bands(summary.series.lossPct), {
      id: 'loss-over-time',
      title: 'Inbound packet loss over time, across participants',
      xLabel: 'seconds since start',
      yLabel: 'loss %',
      yMin: 1,
    }),
    lineChart(bands(summary.series.jitterMs), {
      id: 'jitter-over-time',
      title: 'Inbound jitter over time, across participants',
      xLabel: 'seconds since start',
      yLabel: 'jitter ms',
      yMin: 5,
    }),
    histogram(numbers(summary.participants.map((participant) => participant.mos)), {
      id: 'mos',
      title: 'MOS estimate (E-model, G.107) per participant',
      xLabel: 'MOS',
      min: 1,
      max: 4.5,
      binWidth: 0.25,
    }),
    lineChart(cpu, {
      id: 'generator-cpu',
      title: "The generator's CPU (tool and browsers), share of the machine",
      xLabel: 'seconds since start',
      yLabel: 'CPU %',
      yMin: 100,
    }),
    lineChart(
      perShard(summary, (point) => point.rssMb),
      {
        id: 'generator-memory',
        title: "The generator's memory (RSS)",
        xLabel: 'seconds since start',
        yLabel: 'MB',
      },
    ),
  ];
}
