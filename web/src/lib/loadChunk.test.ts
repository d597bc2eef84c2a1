import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CHUNK_RETRY_DELAYS_MS, type ChunkEnvironment, loadChunk } from './loadChunk.ts';

/** A browser whose network the test switches; counts the stylesheet re-arms. */
function network(initiallyOnline = true) {
  let online = initiallyOnline;
  const listeners = new Set<() => void>();
  const environment: ChunkEnvironment & { rearms: number } = {
    rearms: 0,
    online: () => online,
    onOnline: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    rearmStylesheets: () => {
      environment.rearms += 1;
    },
  };
  return {
    environment,
    listeners,
    set(value: boolean) {
      online = value;
      if (!value) return;
      for (const listener of [...listeners]) {
        listeners.delete(listener);
        listener();
      }
    },
  };
}

describe('loadChunk()', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('passes a chunk that arrives in time through, read once', async () => {
    const load = vi.fn(() => Promise.resolve('page'));
    await expect(loadChunk(load, 1000, network().environment)).resolves.toBe('page');
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('fails a chunk that takes longer than the limit', async () => {
    const pending = loadChunk(() => new Promise(() => {}), 120_000, network().environment);
    const outcome = expect(pending).rejects.toThrow('page did not load within 120 s');
    await vi.advanceTimersByTimeAsync(120_000);
    await outcome;
  });

  it('online: tries again after 1, 2 and 4 s, then passes the last failure on', async () => {
    const { environment } = network();
    const load = vi.fn(() => Promise.reject(new Error(`refused ${load.mock.calls.length}`)));
    const pending = loadChunk(load, 120_000, environment);
    const outcome = expect(pending).rejects.toThrow('refused 4');
    await vi.advanceTimersByTimeAsync(0);
    expect(load).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(CHUNK_RETRY_DELAYS_MS[0] - 1);
    expect(load).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(load).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(CHUNK_RETRY_DELAYS_MS[1] + CHUNK_RETRY_DELAYS_MS[2]);
    expect(load).toHaveBeenCalledTimes(4);
    await outcome;
    // Each try after the first puts failed stylesheets back first.
    expect(environment.rearms).toBe(3);
  });

  it('a chunk that fails once arrives on the next try', async () => {
    const load = vi.fn().mockRejectedValueOnce(new Error('reset')).mockResolvedValueOnce('page');
    const pending = loadChunk(load, 120_000, network().environment);
    await vi.advanceTimersByTimeAsync(CHUNK_RETRY_DELAYS_MS[0]);
    await expect(pending).resolves.toBe('page');
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('offline: waits for the network however many tries that would have been, then reads at once', async () => {
    const net = network(false);
    const load = vi.fn().mockRejectedValueOnce(new Error('offline')).mockResolvedValueOnce('page');
    const pending = loadChunk(load, 120_000, net.environment);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(load).toHaveBeenCalledTimes(1);
    expect(net.listeners.size).toBe(1);
    net.set(true);
    await expect(pending).resolves.toBe('page');
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('offline past the limit: fails at the limit and stops listening for the network', async () => {
    const net = network(false);
    const load = vi.fn(() => Promise.reject(new Error('offline')));
    const pending = loadChunk(load, 120_000, net.environment);
    const outcome = expect(pending).rejects.toThrow('page did not load within 120 s');
    await vi.advanceTimersByTimeAsync(120_000);
    await outcome;
    expect(net.listeners.size).toBe(0);
    net.set(true);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(load).toHaveBeenCalledTimes(1);
  });
});
