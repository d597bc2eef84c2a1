import { describe, expect, it } from 'vitest';
import { levelOf, meterNeeded } from './levelMeter.ts';

describe('levelOf', () => {
  it('is 0 for silence and for no samples', () => {
    expect(levelOf(new Float32Array(256))).toBe(0);
    expect(levelOf(new Float32Array(0))).toBe(0);
  });

  it('grows with the RMS of the samples and stops at 1', () => {
    const quiet = levelOf(new Float32Array(256).fill(0.02));
    const speech = levelOf(new Float32Array(256).fill(0.1));
    expect(quiet).toBeCloseTo(0.08);
    expect(speech).toBeGreaterThan(quiet);
    expect(levelOf(new Float32Array(256).fill(-0.9))).toBe(1);
  });
});

describe('meterNeeded', () => {
  const both = [false, true];

  it('measures whenever the page shows, sending or not, gated or not', () => {
    for (const sending of both) {
      for (const gateHearsLevel of both) {
        expect(meterNeeded({ pageHidden: false, sending, gateHearsLevel })).toBe(true);
      }
    }
  });

  it('measures a hidden page only for a gate that hears the level, while you send', () => {
    expect(meterNeeded({ pageHidden: true, sending: true, gateHearsLevel: true })).toBe(true);
    expect(meterNeeded({ pageHidden: true, sending: false, gateHearsLevel: true })).toBe(false);
  });

  it('spares a hidden page whose gate does not hear the level (always sent, or push-to-talk)', () => {
    expect(meterNeeded({ pageHidden: true, sending: true, gateHearsLevel: false })).toBe(false);
    expect(meterNeeded({ pageHidden: true, sending: false, gateHearsLevel: false })).toBe(false);
  });
});
