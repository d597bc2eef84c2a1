// SLO expressions parsed (good and bad) and judged: held or breached, with the value and the margin.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../cli/errors.ts';
import { type Aggregates, judge, parseSlo } from './slo.ts';

const aggregates: Aggregates = {
  joinP50: 900,
  joinP95: 2410,
  joinP99: 4000,
  firstAudioP50: 1200,
  firstAudioP95: 1900,
  firstAudioP99: 2500,
  stageP50: 420,
  stageP95: 1300,
  lossP50: 0.5,
  lossP95: 3.4,
  jitterP50: 4,
  jitterP95: 12,
  rttP50: 30,
  rttP95: 80,
  mosP05: 3.95,
  mosP50: 4.3,
  heard: 100,
  failedPct: 12.5,
  failedCount: 1,
  concealedP95: null,
};

describe('parseSlo', () => {
  it('reads metrics, operators and units', () => {
    expect(parseSlo('joinP95<3000,lossP95<2%,mosP05>3.8,heard>99%')).toEqual([
      { metric: 'joinP95', op: '<', threshold: 3000, unit: 'ms' },
      { metric: 'lossP95', op: '<', threshold: 2, unit: '%' },
      { metric: 'mosP05', op: '>', threshold: 3.8, unit: 'MOS' },
      { metric: 'heard', op: '>', threshold: 99, unit: '%' },
    ]);
    expect(parseSlo(' firstAudioP95 <= 2.5s , failed<2, failed<5%, jitterP95<30ms ')).toEqual([
      { metric: 'firstAudioP95', op: '<=', threshold: 2500, unit: 'ms' },
      { metric: 'failed', op: '<', threshold: 2, unit: 'count' },
      { metric: 'failed', op: '<', threshold: 5, unit: '%' },
      { metric: 'jitterP95', op: '<', threshold: 30, unit: 'ms' },
    ]);
    expect(parseSlo('')).toEqual([]);
  });

  it.each([
    ['joinP95', /is not metric<value/],
    ['joinP95=3000', /is not metric<value/],
    ['joinP95<', /is not metric<value/],
    ['joinP95<abc', /is not metric<value/],
    ['joinP95<3000,', /'' is not metric<value/],
    ['latency<3000', /unknown metric latency/],
    ['mosP05>3.8%', /mosP05 is measured in MOS, not %/],
    ['heard>99ms', /heard is measured in %, not ms/],
    ['mosP05>7', /MOS runs 1–5/],
    ['lossP95<120%', /a percent above 100/],
    ['joinP95<3000,joinP95<=2000', /gives joinP95 < twice/],
  ])('refuses %s', (text, message) => {
    expect(() => parseSlo(text)).toThrow(UsageError);
    expect(() => parseSlo(text)).toThrow(message);
  });
});

describe('judge', () => {
  it('says which held and which breached, by how much', () => {
    const verdicts = judge(
      parseSlo('joinP95<3000,lossP95<2%,mosP05>3.8,heard>99%,failed<1,concealedP95<1%'),
      aggregates,
    );
    expect(verdicts.map((verdict) => [verdict.metric, verdict.held, verdict.actual, verdict.by])).toEqual([
      ['joinP95', true, 2410, 590],
      ['lossP95', false, 3.4, expect.closeTo(1.4, 6)],
      ['mosP05', true, 3.95, expect.closeTo(0.15, 6)],
      ['heard', true, 100, 1],
      ['failed', false, 1, 0],
      ['concealedP95', false, null, null],
    ]);
    expect(verdicts.map((verdict) => verdict.line)).toEqual([
      'joinP95 < 3000 ms: 2410 ms, held (590 ms to spare)',
      'lossP95 < 2%: 3.4%, breached by 1.4%',
      'mosP05 > 3.80: 3.95, held (0.15 to spare)',
      'heard > 99%: 100%, held (1% to spare)',
      'failed < 1: 1, breached by 0',
      'concealedP95 < 1%: nothing measured, breached',
    ]);
  });

  it('<= and >= hold at the threshold; failed as a percent reads the share', () => {
    const [atMost, atLeast, share] = judge(parseSlo('joinP95<=2410,mosP50>=4.3,failed<10%'), aggregates);
    expect(atMost?.held).toBe(true);
    expect(atLeast?.held).toBe(true);
    expect(share).toMatchObject({ held: false, actual: 12.5, line: 'failed < 10%: 12.5%, breached by 2.5%' });
  });

  it('a stage run: hand raised → on stage, in seconds or ms', () => {
    const [p95, p50] = judge(parseSlo('stageP95<1s,stageP50<500'), aggregates);
    expect(p95).toMatchObject({ held: false, line: 'stageP95 < 1000 ms: 1300 ms, breached by 300 ms' });
    expect(p50).toMatchObject({ held: true, actual: 420 });
  });
});
