import { SOCKET } from '@voice/protocol';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RECONNECT, reconnectDelay } from './reconnectPolicy.ts';

const middle = () => 0.5;
const lowest = () => 0;
const highest = () => 0.999_999;

describe('reconnectDelay()', () => {
  it("uses the spec's constants", () => {
    expect(DEFAULT_RECONNECT).toEqual({
      baseDelayMs: 1000,
      maxDelayMs: 5000,
      randomizationFactor: 0.5,
      maxAttempts: Number.POSITIVE_INFINITY,
    });
    expect(DEFAULT_RECONNECT.baseDelayMs).toBe(SOCKET.reconnectDelayMs);
  });

  it('starts at 1 s and doubles up to 5 s without jitter', () => {
    expect([0, 1, 2, 3, 4, 10].map((attempt) => reconnectDelay(attempt, middle))).toEqual([
      1000, 2000, 4000, 5000, 5000, 5000,
    ]);
  });

  it('spreads each delay by ±50 % and never beyond 5 s', () => {
    expect(reconnectDelay(0, lowest)).toBe(500);
    expect(reconnectDelay(0, highest)).toBe(1500);
    expect(reconnectDelay(1, lowest)).toBe(1000);
    expect(reconnectDelay(1, highest)).toBe(3000);
    expect(reconnectDelay(2, highest)).toBe(5000);
    // At the cap the spread still applies downwards, so browsers do not return in lockstep.
    expect(reconnectDelay(20, lowest)).toBe(2500);
    expect(reconnectDelay(20, highest)).toBe(5000);
  });

  it('stays within bounds for any random draw', () => {
    for (let attempt = 0; attempt < 50; attempt++) {
      for (let i = 0; i < 20; i++) {
        const delay = reconnectDelay(attempt) as number;
        expect(delay).toBeGreaterThanOrEqual(500);
        expect(delay).toBeLessThanOrEqual(5000);
      }
    }
  });

  it('never gives up with the default options', () => {
    expect(reconnectDelay(1_000_000, middle)).toBe(5000);
  });

  it('gives up after maxAttempts when a limit is set', () => {
    const options = { ...DEFAULT_RECONNECT, maxAttempts: 3 };
    expect(reconnectDelay(2, middle, options)).toBe(4000);
    expect(reconnectDelay(3, middle, options)).toBeNull();
  });

  it('refuses a negative or fractional attempt', () => {
    expect(() => reconnectDelay(-1)).toThrow(TypeError);
    expect(() => reconnectDelay(1.5)).toThrow(TypeError);
  });
});
