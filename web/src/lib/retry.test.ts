import { I18N_LOAD } from '@voice/protocol';
import { describe, expect, it, vi } from 'vitest';
import { createLimiter, withRetry } from './retry.ts';

describe('withRetry', () => {
  it('retries up to the limit with doubling delays', async () => {
    const delays: number[] = [];
    const task = vi.fn().mockRejectedValue(new Error('offline'));
    const policy = { retries: I18N_LOAD.retries, delayMs: I18N_LOAD.retryDelayMs };
    await expect(
      withRetry(task, policy, async (ms) => {
        delays.push(ms);
      }),
    ).rejects.toThrow('offline');
    expect(task).toHaveBeenCalledTimes(6);
    expect(delays).toEqual([350, 700, 1400, 2800, 5600]);
  });

  it('returns the first success', async () => {
    const task = vi.fn().mockRejectedValueOnce(new Error('blip')).mockResolvedValue('ok');
    await expect(withRetry(task, { retries: 5, delayMs: 1 }, async () => {})).resolves.toBe('ok');
    expect(task).toHaveBeenCalledTimes(2);
  });

  it('gives up at once on a failure the policy does not retry', async () => {
    const task = vi.fn().mockRejectedValue(new Error('401'));
    const retryIf = (error: unknown) => error instanceof Error && error.message === 'offline';
    await expect(withRetry(task, { retries: 3, delayMs: 1, retryIf }, async () => {})).rejects.toThrow('401');
    expect(task).toHaveBeenCalledOnce();
  });
});

describe('createLimiter', () => {
  it('never runs more than the limit at once', async () => {
    const limit = createLimiter(2);
    let running = 0;
    let peak = 0;
    const task = async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
    };
    await Promise.all(Array.from({ length: 7 }, () => limit(task)));
    expect(peak).toBe(2);
  });

  it('frees the slot when a task fails', async () => {
    const limit = createLimiter(1);
    await expect(limit(() => Promise.reject(new Error('x')))).rejects.toThrow('x');
    await expect(limit(() => Promise.resolve(1))).resolves.toBe(1);
  });
});
