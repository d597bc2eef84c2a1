import { describe, expect, it } from 'vitest';
import { assess, lossBetween, qualityOf, sampleOf } from './connectionQuality.ts';

/** An RTCStatsReport stand-in: what forEach walks is all sampleOf reads. */
const report = (stats: Array<Record<string, unknown>>) =>
  new Map(stats.map((stat, i) => [String(i), stat])) as unknown as RTCStatsReport;

describe('sampleOf', () => {
  it("takes the round trip of the connection in use, and adds up the incoming audio's packets", () => {
    const send = report([
      { type: 'candidate-pair', state: 'succeeded', nominated: true, currentRoundTripTime: 0.081 },
      { type: 'candidate-pair', state: 'failed', currentRoundTripTime: 2 },
    ]);
    const recv = report([
      { type: 'candidate-pair', state: 'succeeded', nominated: true, currentRoundTripTime: 0.042 },
      { type: 'inbound-rtp', kind: 'audio', packetsLost: 3, packetsReceived: 97 },
      { type: 'inbound-rtp', kind: 'audio', packetsLost: 1, packetsReceived: 199 },
      { type: 'inbound-rtp', kind: 'video', packetsLost: 50, packetsReceived: 50 },
    ]);
    expect(sampleOf([send, recv])).toEqual({ rttMs: 81, packetsLost: 4, packetsReceived: 296 });
  });

  it('falls back to the remote report, and knows no round trip without one', () => {
    expect(sampleOf([report([{ type: 'remote-inbound-rtp', roundTripTime: 0.3 }])]).rttMs).toBeCloseTo(300);
    expect(sampleOf([report([{ type: 'candidate-pair', state: 'in-progress' }])]).rttMs).toBeNull();
    expect(sampleOf([])).toEqual({ rttMs: null, packetsLost: 0, packetsReceived: 0 });
  });
});

describe('lossBetween', () => {
  it('is the share lost since the previous look, not since the start', () => {
    const before = { rttMs: 50, packetsLost: 100, packetsReceived: 1000 };
    expect(lossBetween(before, { rttMs: 50, packetsLost: 105, packetsReceived: 1095 })).toBe(5);
  });

  it('is unknown when nothing arrived, or the counters went back (a new connection)', () => {
    const before = { rttMs: 50, packetsLost: 10, packetsReceived: 1000 };
    expect(lossBetween(before, before)).toBeNull();
    expect(lossBetween(before, { rttMs: 50, packetsLost: 0, packetsReceived: 10 })).toBeNull();
  });
});

describe('qualityOf', () => {
  it.each([
    [40, 0, 'good'],
    [200, 1.9, 'good'],
    [201, 0, 'fair'],
    [80, 2, 'fair'],
    [400, 7.9, 'fair'],
    [401, 0, 'poor'],
    [50, 8, 'poor'],
    [null, null, 'good'],
    [null, 12, 'poor'],
  ] as const)('rtt %s ms, loss %s%%: %s', (rtt, loss, quality) => {
    expect(qualityOf(rtt, loss)).toBe(quality);
  });

  it('assess: no loss figure from a first look', () => {
    expect(assess(null, { rttMs: 90, packetsLost: 50, packetsReceived: 50 })).toEqual({
      quality: 'good',
      rttMs: 90,
      lossPercent: null,
    });
  });
});
