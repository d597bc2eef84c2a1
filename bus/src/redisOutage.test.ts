import { ErrorReply } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineChannel } from './Channel.ts';
import { RedisBus } from './RedisBus.ts';
import { RECONNECT_MAX_DELAY_MS, RedisLink, RedisUnavailableError } from './RedisLink.ts';
import { MemoryLogger } from './testing/logger.ts';
import { RedisProcess } from './testing/RedisProcess.ts';

// A Redis of the test's own, paused and restarted at will; the shared one is never touched.
const logger = new MemoryLogger();
const TIMEOUT_MS = 300;
const news = defineChannel('news', z.object({ n: z.number() }));

/** Resolves on the link's next recovery, with the ms it took. */
function nextRecovery(link: RedisLink): Promise<number> {
  const started = Date.now();
  return new Promise((resolve) => {
    const off = link.onRecovered(() => {
      off();
      resolve(Date.now() - started);
    });
  });
}

describe('RedisLink and RedisBus when Redis fails', () => {
  let redis: RedisProcess;
  let link: RedisLink;

  beforeAll(async () => {
    redis = await RedisProcess.start();
  });
  afterEach(async () => {
    redis.resume();
    await link?.close();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('link.call() to a hung Redis fails by its deadline; later calls fail at once, unsent', async () => {
    link = await RedisLink.connect(redis.url, logger, { timeoutMs: TIMEOUT_MS, probeMs: 100 });
    expect(await link.call((c) => c.ping())).toBe('PONG');
    redis.pause();

    let started = performance.now();
    await expect(link.call((c) => c.ping())).rejects.toBeInstanceOf(RedisUnavailableError);
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + 1000);
    expect(link.available).toBe(false);

    // Nothing piles up however many calls an outage sees: none reaches the client.
    let sent = 0;
    started = performance.now();
    const calls = Array.from({ length: 5000 }, () =>
      link.call((c) => {
        sent += 1;
        return c.set('k', 'v');
      }),
    );
    const outcomes = await Promise.allSettled(calls);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(sent).toBe(0);
    expect(outcomes.every((o) => o.status === 'rejected' && o.reason instanceof RedisUnavailableError)).toBe(
      true,
    );

    const recovered = nextRecovery(link);
    redis.resume();
    expect(await recovered).toBeLessThan(2000);
    expect(link.available).toBe(true);
    expect(await link.call((c) => c.ping())).toBe('PONG');
  });

  it('a process held up past the deadline is no outage: the answer that came meanwhile is taken', async () => {
    link = await RedisLink.connect(redis.url, logger, { timeoutMs: TIMEOUT_MS });
    // The event loop blocked (a starved or busy process) past the deadline, twice over.
    const answer = link.call((c) => c.ping());
    const blockedUntil = performance.now() + 3 * TIMEOUT_MS;
    while (performance.now() < blockedUntil) {
      // busy
    }
    expect(await answer).toBe('PONG');
    expect(link.available).toBe(true);
    // A Redis that does not answer is still found out.
    redis.pause();
    await expect(link.call((c) => c.ping())).rejects.toBeInstanceOf(RedisUnavailableError);
    expect(link.available).toBe(false);
    const recovered = nextRecovery(link);
    redis.resume();
    await recovered;
  });

  it('link.close() does not wait for a hung Redis', async () => {
    link = await RedisLink.connect(redis.url, logger, { timeoutMs: TIMEOUT_MS });
    redis.pause();
    const started = performance.now();
    await link.close();
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + 1000);
  });

  it('a Redis that restarts empty is found again', async () => {
    link = await RedisLink.connect(redis.url, logger, { timeoutMs: TIMEOUT_MS });
    await link.call((c) => c.set('k', 'v'));
    const recovered = nextRecovery(link);
    await redis.restartEmpty();
    // The restart was seen (the connection dropped); the reconnection follows within its delay.
    expect(await recovered).toBeLessThan(RECONNECT_MAX_DELAY_MS + 2000);
    expect(await link.call((c) => c.get('k'))).toBeNull();
  });

  it('bus.onRecovered() handlers run when a restarted Redis is back, until turned off', async () => {
    link = await RedisLink.connect(redis.url, logger, { timeoutMs: TIMEOUT_MS });
    const bus = await RedisBus.create(link, 'test:', logger);
    try {
      let told = 0;
      let toldAfterOff = 0;
      bus.onRecovered(() => told++);
      const off = bus.onRecovered(() => toldAfterOff++);
      await redis.restartEmpty();
      await expect.poll(() => told, { timeout: RECONNECT_MAX_DELAY_MS + 5000 }).toBe(1);
      expect(toldAfterOff).toBe(1);
      off();
      const recovered = nextRecovery(link);
      await redis.restartEmpty();
      await recovered;
      await expect.poll(() => told).toBe(2);
      expect(toldAfterOff).toBe(1);
    } finally {
      await bus.close();
    }
  });

  it('error replies of Redis pass through and do not count as an outage', async () => {
    link = await RedisLink.connect(redis.url, logger, { timeoutMs: TIMEOUT_MS });
    await link.call((c) => c.set('str', 'v'));
    await expect(link.call((c) => c.lPush('str', 'x'))).rejects.toBeInstanceOf(ErrorReply);
    expect(link.available).toBe(true);
  });

  it('bus.publish() during an outage answers at once and still reaches this process', async () => {
    link = await RedisLink.connect(redis.url, logger, { timeoutMs: TIMEOUT_MS });
    const bus = await RedisBus.create(link, 'test:', logger);
    try {
      const heard: unknown[] = [];
      await bus.subscribe(news, (m) => heard.push(m));
      await bus.publish(news, { n: 1 });
      await expect.poll(() => heard).toEqual([{ n: 1 }]);

      redis.pause();
      const started = performance.now();
      for (let n = 2; n <= 50; n++) await bus.publish(news, { n });
      expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + 1000);
      await expect.poll(() => heard.length).toBe(50);
    } finally {
      redis.resume();
      await bus.close();
    }
  });
});
