// The E-model (G.107) with Opus figures at known points, and its shape: monotonic in loss and delay.
import { describe, expect, it } from 'vitest';
import {
  delayImpairment,
  effectiveEquipmentImpairment,
  estimateMos,
  mosFromR,
  mouthToEarMs,
  R_BASE,
  rFactor,
} from './emodel.ts';

describe('E-model', () => {
  it('no loss, low delay: R = 93.2, MOS ≈ 4.41 (the narrowband ceiling)', () => {
    const input = { lossPct: 0, rttMs: 20, jitterMs: 2 };
    expect(mouthToEarMs(input)).toBeCloseTo(10 + 20 + 26.5);
    expect(rFactor(input)).toBeCloseTo(R_BASE);
    expect(estimateMos(input)).toBeCloseTo(4.41, 2);
  });

  it("G.107's R → MOS at its reference points, clamped to 1 … 4.5", () => {
    expect(mosFromR(0)).toBe(1);
    expect(mosFromR(-20)).toBe(1);
    expect(mosFromR(50)).toBeCloseTo(2.58, 2);
    expect(mosFromR(70)).toBeCloseTo(3.6, 1);
    expect(mosFromR(80)).toBeCloseTo(4.02, 2);
    expect(mosFromR(100)).toBe(4.5);
    expect(mosFromR(120)).toBe(4.5);
  });

  it('5% random loss: Ie,eff = 95·5/(5+25) ≈ 15.8, MOS ≈ 3.9', () => {
    expect(effectiveEquipmentImpairment(5)).toBeCloseTo((95 * 5) / 30, 6);
    const mos = estimateMos({ lossPct: 5, rttMs: 20, jitterMs: 2 });
    expect(mos).toBeGreaterThan(3.8);
    expect(mos).toBeLessThan(4.0);
  });

  it('bursty loss hurts more than random loss', () => {
    expect(effectiveEquipmentImpairment(5, 2)).toBeGreaterThan(effectiveEquipmentImpairment(5, 1));
  });

  it('delay: no impairment up to 100 ms mouth to ear; 300 ms one way lowers MOS below 4', () => {
    expect(delayImpairment(100)).toBe(0);
    expect(delayImpairment(300)).toBeCloseTo(14.76, 2);
    const far = estimateMos({ lossPct: 0, rttMs: 600, jitterBufferMs: 0 });
    expect(mouthToEarMs({ lossPct: 0, rttMs: 600, jitterBufferMs: 0 })).toBeCloseTo(326.5);
    expect(far).toBeLessThan(4);
    expect(far).toBeLessThan(estimateMos({ lossPct: 0, rttMs: 20 }));
  });

  it('a measured jitter buffer is used as is; otherwise twice the jitter, at least 20 ms', () => {
    expect(mouthToEarMs({ lossPct: 0, rttMs: 0, jitterBufferMs: 60 })).toBeCloseTo(86.5);
    expect(mouthToEarMs({ lossPct: 0, rttMs: 0, jitterMs: 30 })).toBeCloseTo(86.5);
    expect(mouthToEarMs({ lossPct: 0, rttMs: 0 })).toBeCloseTo(46.5);
  });

  it('is monotonic: more loss or more delay never raises the MOS', () => {
    let previous = Number.POSITIVE_INFINITY;
    for (let loss = 0; loss <= 50; loss += 0.5) {
      const mos = estimateMos({ lossPct: loss, rttMs: 50 });
      expect(mos).toBeLessThanOrEqual(previous);
      previous = mos;
    }
    previous = Number.POSITIVE_INFINITY;
    for (let rtt = 0; rtt <= 2000; rtt += 10) {
      const mos = estimateMos({ lossPct: 1, rttMs: rtt });
      expect(mos).toBeLessThanOrEqual(previous);
      previous = mos;
    }
    expect(estimateMos({ lossPct: 100, rttMs: 2000 })).toBeGreaterThanOrEqual(1);
  });
});
