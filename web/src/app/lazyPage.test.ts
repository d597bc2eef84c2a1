import { describe, expect, it, vi } from 'vitest';
import { withChunkTimeout } from './lazyPage.ts';

describe('withChunkTimeout()', () => {
  it('passes a chunk that arrives in time through', async () => {
    await expect(withChunkTimeout(Promise.resolve('page'), 1000)).resolves.toBe('page');
  });

  it('fails a chunk that takes longer than the limit', async () => {
    vi.useFakeTimers();
    try {
      const pending = withChunkTimeout(new Promise(() => {}), 120_000);
      const outcome = expect(pending).rejects.toThrow('page did not load within 120 s');
      await vi.advanceTimersByTimeAsync(120_000);
      await outcome;
    } finally {
      vi.useRealTimers();
    }
  });

  it('passes a failed chunk load on', async () => {
    await expect(withChunkTimeout(Promise.reject(new Error('offline')), 1000)).rejects.toThrow('offline');
  });
});
