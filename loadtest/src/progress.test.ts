// The terminal progress: redrawn in place on a TTY, a line every 5 s otherwise, the summary at the end.
import { describe, expect, it } from 'vitest';
import { Progress, type ProgressSnapshot } from './progress.ts';
import { fixtureResults } from './results/fixtures.ts';
import { summarize } from './results/summarize.ts';

function streams(isTTY: boolean) {
  const progress: string[] = [];
  const summary: string[] = [];
  return {
    progress,
    summary,
    streams: {
      progress: { isTTY, write: (text: string) => progress.push(text) },
      summary: { write: (text: string) => summary.push(text) },
    },
  };
}

const at = (elapsedMs: number, cpuPct = 40): ProgressSnapshot => ({
  target: 40,
  joined: 12,
  hearing: 11,
  failed: 1,
  cpuPct,
  elapsedMs,
  durationMs: 120_000,
});

describe('Progress', () => {
  it('draws the bar and the counters', () => {
    expect(Progress.bar(at(36_000))).toBe(`[${'#'.repeat(9)}${'.'.repeat(21)}]  30% 36s/120s`);
    expect(Progress.counters(at(36_000))).toBe(
      '12/40 joined · 11 hearing audio · 1 failed · generator CPU 40%',
    );
  });

  it('on a terminal: redraws one line in place, ends it before the summary', () => {
    const out = streams(true);
    const progress = new Progress(out.streams);
    progress.update(at(1000));
    progress.update(at(2000));
    expect(out.progress).toHaveLength(2);
    for (const text of out.progress) expect(text.startsWith('\r\x1b[2K[')).toBe(true);
    progress.finish(summarize(fixtureResults()));
    expect(out.progress.at(-1)).toBe('\n');
    expect(out.summary.join('')).toContain('8 participants: 8 joined, 0 failed, 8 of 8 heard audio');
  });

  it('in a log: one line every 5 s', () => {
    const out = streams(false);
    const progress = new Progress(out.streams);
    for (let second = 0; second <= 12; second++) progress.update(at(second * 1000));
    expect(out.progress).toHaveLength(3);
    expect(out.progress[2]).toMatch(/^\[.*\] +8% 10s\/120s {2}12\/40 joined/);
    expect(out.progress.every((line) => line.endsWith('\n') && !line.includes('\r'))).toBe(true);
  });

  it('warns once when the generator passes 85% CPU', () => {
    const out = streams(false);
    const progress = new Progress(out.streams);
    progress.update(at(0, 90));
    progress.update(at(5000, 95));
    const warnings = out.progress.filter((line) => line.startsWith('warning:'));
    expect(warnings).toEqual([
      'warning: the generator is above 85% CPU: it, not the service, may be the bottleneck\n',
    ]);
    expect(out.progress.at(-1)).toContain('(generator overloaded)');
  });

  it('the final table: figures, failures and each verdict', () => {
    const table = Progress.table(summarize(fixtureResults({ lossPct: 6, failing: 1 })));
    expect(table).toMatch(/join p95 +\d+ ms/);
    expect(table).toContain('failed: Load lt_7: Could not join the room');
    expect(table).toContain('BREACHED lossP95 < 2%: 6%, breached by 4%');
    expect(table).toContain('HELD     joinP95 < 3000 ms');
  });
});
