import { describe, expect, it } from 'vitest';
import { levelOf } from './levelMeter.ts';

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
