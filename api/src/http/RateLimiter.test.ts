import { randomUUID } from 'node:crypto';
import { RedisProcess } from '@voice/bus/testing';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimitedError } from '../errors.ts';
import { signUp, TestServer } from '../testing/TestServer.ts';
import { addressKey, type Limit, RateLimiter } from './RateLimiter.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The seconds a rejected consume asks to wait; null when it was let through. */
async function waitAsked(limiter: RateLimiter, limit: Limit, key: string): Promise<number | null> {
  try {
    await limiter.consume(limit, key);
    return null;
  } catch (error) {
    if (!(error instanceof RateLimitedError)) throw error;
    return error.retryAfterSeconds;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(['memory', 'redis'] as const)('RateLimiter (%s store)', (store) => {
  let redis: ReturnType<typeof createClient> | null = null;
  let limiter: RateLimiter;
  beforeAll(async () => {
    if (store === 'redis') redis = await createClient({ url: REDIS_URL }).connect();
    // Keys of a shared Redis must not leak from one run into the next.
    limiter = new RateLimiter({ redis, prefix: `test:${randomUUID()}:rl:` });
  });
  afterAll(async () => {
    await limiter?.close();
    await redis?.quit();
  });

  it('lets exactly max hits through when they arrive at once', async () => {
    const limit = { name: 'burst', max: 7, windowMs: 60_000 };
    const waits = await Promise.all(Array.from({ length: 50 }, () => waitAsked(limiter, limit, 'k')));
    expect(waits.filter((wait) => wait === null)).toHaveLength(7);
    for (const wait of waits.filter((w) => w !== null)) expect(wait).toBeGreaterThan(0);
  });

  it('gives back a hit with reward and forgets a key with reset', async () => {
    const limit = { name: 'reward', max: 2, windowMs: 60_000 };
    await limiter.consume(limit, 'k');
    await limiter.consume(limit, 'k');
    await limiter.reward(limit, 'k');
    await limiter.consume(limit, 'k');
    expect(await waitAsked(limiter, limit, 'k')).toBe(60);
    await limiter.reset(limit, 'k');
    expect(await waitAsked(limiter, limit, 'k')).toBeNull();
  });

  it('locks a key past its limit, twice as long on each further lock', async () => {
    const limit = { name: 'lockout', max: 2, windowMs: 60_000, lockout: { firstMs: 1000, maxMs: 4000 } };
    const lockedFor = async () => {
      await limiter.consume(limit, 'k');
      await limiter.consume(limit, 'k');
      return waitAsked(limiter, limit, 'k');
    };
    expect(await lockedFor()).toBe(1);
    // Locked: no hit passes until the lock ends.
    expect(await waitAsked(limiter, limit, 'k')).toBe(1);
    await sleep(1200);
    expect(await lockedFor()).toBe(2);
    await sleep(2200);
    expect(await lockedFor()).toBe(4);
    // A reset (a good password) forgets the locks too.
    await limiter.reset(limit, 'k');
    expect(await lockedFor()).toBe(1);
  });

  it('multiplies every max by the factor', async () => {
    const scaled = new RateLimiter({ redis, prefix: `test:${randomUUID()}:rl:`, factor: 3 });
    const limit = { name: 'scaled', max: 2, windowMs: 60_000 };
    for (let i = 0; i < 6; i++) await scaled.consume(limit, 'k');
    await expect(scaled.consume(limit, 'k')).rejects.toBeInstanceOf(RateLimitedError);
  });
});

describe('RateLimiter while Redis hangs', () => {
  let redisProcess: RedisProcess;
  let redis: ReturnType<typeof createClient>;
  beforeAll(async () => {
    redisProcess = await RedisProcess.start();
    redis = await createClient({ url: redisProcess.url }).connect();
  });
  afterAll(async () => {
    redisProcess?.resume();
    await redis?.quit().catch(() => {});
    await redisProcess?.stop();
  });

  it('answers within its timeout, keeps counting in the process, and goes back to Redis', async () => {
    const limiter = new RateLimiter({ redis, prefix: 'rl:', timeoutMs: 300, retryRedisAfterMs: 500 });
    const limit = { name: 'hang', max: 5, windowMs: 60_000 };
    await limiter.consume(limit, 'k');
    expect(await redis.keys('rl:hang:*')).toEqual(['rl:hang:k']);

    redisProcess.pause();
    try {
      const started = Date.now();
      const waits = [];
      for (let i = 0; i < 6; i++) waits.push(await waitAsked(limiter, limit, 'k'));
      // Six calls that each waited for Redis to the end would take over a minute.
      expect(Date.now() - started).toBeLessThan(6 * 300 + 3000);
      // The process's own count starts afresh: five pass, the sixth is refused.
      expect(waits.slice(0, 5)).toEqual([null, null, null, null, null]);
      expect(waits[5]).toBeGreaterThan(0);
      await limiter.reward(limit, 'k');
      await limiter.reset(limit, 'k');
    } finally {
      redisProcess.resume();
    }
    // Redis answers again (the calls that timed out reach it late, and count too): after a
    // while the process counts in Redis again.
    await redis.ping();
    const before = Number(await redis.get('rl:hang:k'));
    await sleep(600);
    await limiter.reward(limit, 'k');
    expect(Number(await redis.get('rl:hang:k'))).toBe(before - 1);
  });
});

describe('POST /auth/login while Redis hangs', () => {
  let redisProcess: RedisProcess;
  let server: TestServer;
  beforeAll(async () => {
    redisProcess = await RedisProcess.start();
    server = await TestServer.start({ REDIS_URL: redisProcess.url, RATE_LIMIT_FACTOR: '1' });
  });
  afterAll(async () => {
    redisProcess?.resume();
    // Let the server see Redis back before it closes its connections.
    await sleep(1500);
    await server?.close();
    await redisProcess?.stop();
  });

  it('answers at once and is still limited, per process', async () => {
    const account = await signUp(server);
    const login = (password: string) =>
      server.request('POST', '/auth/login', { body: { username: account.username, password } });
    redisProcess.pause();
    try {
      const started = Date.now();
      expect((await login(account.password)).status).toBe(200);
      expect(Date.now() - started).toBeLessThan(5000);
      const statuses = [];
      for (let i = 0; i <= 10; i++) statuses.push((await login('wrong-pass')).status);
      expect(statuses.slice(0, 10).every((status) => status === 401)).toBe(true);
      expect(statuses[10]).toBe(429);
    } finally {
      redisProcess.resume();
    }
  });
});

describe('addressKey', () => {
  it('keeps IPv4 addresses and names IPv6 clients by their /64 network', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:DB8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
  });
});
