import { type Bus, MemoryBus, RedisBus, RedisLink } from '@voice/bus';
import { MemoryLogger, RedisProcess } from '@voice/bus/testing';
import { AUTH_CHANGES_CHANNEL } from '@voice/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { UserRow } from '../users/UserRepository.ts';
import { SessionCache, type SessionClaims } from './SessionCache.ts';

const logger = new MemoryLogger();
const HOUR_S = 3600;

/** A clock the test moves by hand. */
class Clock {
  ms = Date.now();
  readonly now = () => this.ms;
}

let counter = 0;
/** A session of a new person, or of `person`. */
function session(clock: Clock, person?: UserRow) {
  counter += 1;
  const row =
    person ?? ({ id: `user-${counter}`, username: `name_${counter}`, display_name: null } as UserRow);
  const claims: SessionClaims = {
    sub: row.id,
    jti: `session-${counter}`,
    exp: Math.floor(clock.ms / 1000) + HOUR_S,
  };
  return { token: `token-${counter}`, claims, row };
}

/** Remembers `s` as verified by the database, and returns what the cache now answers for it. */
function remember(cache: SessionCache, s: ReturnType<typeof session>) {
  cache.remember(s.token, s.claims, s.row, cache.ticket());
  return lookup(cache, s);
}

function lookup(cache: SessionCache, s: ReturnType<typeof session>): UserRow | undefined {
  return cache.session(s.token)?.user;
}

describe('SessionCache', () => {
  const open: Array<SessionCache | Bus> = [];
  const start = async (options: Partial<Parameters<typeof SessionCache.create>[0]> & { bus: Bus }) => {
    const cache = await SessionCache.create({ logger, ...options });
    open.push(cache);
    return cache;
  };
  afterEach(async () => {
    for (const item of open.splice(0).reverse()) await item.close();
  });

  it('answers a remembered session until its TTL, and never past the token’s own expiry', async () => {
    const clock = new Clock();
    const cache = await start({ bus: new MemoryBus(logger), now: clock.now, ttlMs: 30_000 });
    const s = session(clock);
    expect(lookup(cache, s)).toBeUndefined();
    expect(remember(cache, s)).toBe(s.row);
    clock.ms += 29_999;
    expect(lookup(cache, s)).toBe(s.row);
    clock.ms += 1;
    expect(lookup(cache, s)).toBeUndefined();

    const expiring = session(clock);
    expiring.claims.exp = Math.floor(clock.ms / 1000) + 10;
    expect(remember(cache, expiring)).toBe(expiring.row);
    clock.ms = expiring.claims.exp * 1000;
    expect(cache.claims(expiring.token)).toBeUndefined();
  });

  it('answers a session only for the person its token names', async () => {
    const clock = new Clock();
    const cache = await start({ bus: new MemoryBus(logger), now: clock.now });
    const s = session(clock);
    expect(cache.session(s.token)).toBeUndefined();
    expect(remember(cache, s)).toBe(s.row);
    expect(cache.session(s.token)).toMatchObject({
      sessionId: s.claims.jti,
      expiresAt: new Date(s.claims.exp * 1000),
    });
    // Another token naming the same session id for someone else (it would need the signing key).
    const forged = session(clock);
    forged.claims.jti = s.claims.jti;
    remember(cache, forged);
    expect(lookup(cache, s)).toBeUndefined();
    expect(cache.claims(s.token)).toEqual(s.claims);
  });

  it('sessionEnded() forgets the session here at once and on every process on the bus', async () => {
    const bus = new MemoryBus(logger);
    const here = await start({ bus });
    const there = await start({ bus });
    const clock = new Clock();
    const ended = session(clock);
    const other = session(clock, ended.row);
    for (const cache of [here, there]) {
      remember(cache, ended);
      remember(cache, other);
    }
    const told = here.sessionEnded(ended.claims.jti);
    expect(lookup(here, ended)).toBeUndefined();
    await told;
    await expect.poll(() => lookup(there, ended)).toBeUndefined();
    // The person's other session stays.
    expect(lookup(here, other)).toBe(other.row);
    expect(lookup(there, other)).toBe(other.row);
  });

  it('userChanged() forgets every session of the person everywhere, and no one else’s', async () => {
    const bus = new MemoryBus(logger);
    const here = await start({ bus });
    const there = await start({ bus });
    const clock = new Clock();
    const first = session(clock);
    const second = session(clock, first.row);
    const stranger = session(clock);
    for (const cache of [here, there]) for (const s of [first, second, stranger]) remember(cache, s);

    await here.userChanged(first.row.id);
    expect(lookup(here, first)).toBeUndefined();
    expect(lookup(here, second)).toBeUndefined();
    await expect.poll(() => lookup(there, second)).toBeUndefined();
    expect(lookup(there, first)).toBeUndefined();
    expect(lookup(here, stranger)).toBe(stranger.row);
    expect(lookup(there, stranger)).toBe(stranger.row);

    // Verified again, the session is the person's new row, and the other session stays forgotten
    // until it is verified itself.
    const changed = { ...first, row: { ...first.row, display_name: 'New' } as UserRow };
    expect(remember(here, changed)?.display_name).toBe('New');
    expect(lookup(here, second)).toBeUndefined();
    expect(remember(here, second)?.display_name).toBe('New');
  });

  it('does not keep what a query read while something was forgotten', async () => {
    const cache = await start({ bus: new MemoryBus(logger) });
    const clock = new Clock();
    const s = session(clock);
    const ticket = cache.ticket();
    // The query is under way when the session ends: its row may be from before.
    await cache.sessionEnded(s.claims.jti);
    cache.remember(s.token, s.claims, s.row, ticket);
    expect(lookup(cache, s)).toBeUndefined();
    expect(cache.size).toEqual({ tokens: 0, sessions: 0, users: 0 });
  });

  it('holds at most maxEntries of each kind, dropping the oldest', async () => {
    const cache = await start({ bus: new MemoryBus(logger), maxEntries: 3 });
    const clock = new Clock();
    const sessions = Array.from({ length: 10 }, () => session(clock));
    for (const s of sessions) remember(cache, s);
    expect(cache.size).toEqual({ tokens: 3, sessions: 3, users: 3 });
    for (const s of sessions.slice(0, 7)) expect(lookup(cache, s)).toBeUndefined();
    for (const s of sessions.slice(7)) expect(lookup(cache, s)).toBe(s.row);
  });

  it('drops malformed bus messages and keeps working', async () => {
    const bus = new MemoryBus(logger);
    const cache = await start({ bus });
    const clock = new Clock();
    const s = session(clock);
    remember(cache, s);
    const before = logger.lines.length;
    for (const raw of [
      'not json',
      'null',
      '{}',
      '{"type":"session-ended"}',
      '{"type":"session-ended","sessionId":""}',
      `{"type":"session-ended","sessionId":"${'x'.repeat(201)}"}`,
      '{"type":"user-changed","userId":42}',
      '{"type":"forget-everyone"}',
      '[{"type":"flush"}]',
    ]) {
      await bus.publishRaw(AUTH_CHANGES_CHANNEL, raw);
    }
    await expect.poll(() => logger.lines.length - before).toBe(9);
    expect(logger.lines.slice(before).every((line) => line.message.startsWith('bus: dropped'))).toBe(true);
    expect(lookup(cache, s)).toBe(s.row);
    await bus.publishRaw(AUTH_CHANGES_CHANNEL, `{"type":"session-ended","sessionId":"${s.claims.jti}"}`);
    await expect.poll(() => lookup(cache, s)).toBeUndefined();
  });

  it('close() forgets everything, stops listening, and may be called twice', async () => {
    const bus = new MemoryBus(logger);
    const cache = await start({ bus });
    const s = session(new Clock());
    remember(cache, s);
    await cache.close();
    await cache.close();
    expect(cache.size).toEqual({ tokens: 0, sessions: 0, users: 0 });
    cache.remember(s.token, s.claims, s.row, cache.ticket());
    expect(lookup(cache, s)).toBeUndefined();
  });
});

describe('SessionCache when Redis fails', () => {
  // A Redis of the test's own, paused and restarted; the shared one is never touched.
  let redis: RedisProcess;
  const open: Array<{ close(): Promise<void> }> = [];
  const RESYNC_MS = 300;

  /** One process's cache on its own link to the test's Redis. */
  async function node(prefix: string) {
    const link = await RedisLink.connect(redis.url, logger, { timeoutMs: 300, probeMs: 100 });
    const bus = await RedisBus.create(link, prefix, logger);
    const cache = await SessionCache.create({ bus, health: link, logger, resyncDelayMs: RESYNC_MS });
    open.push(link, bus, cache);
    return { link, bus, cache };
  }

  beforeAll(async () => {
    redis = await RedisProcess.start();
  });
  afterEach(async () => {
    redis.resume();
    for (const item of open.splice(0).reverse()) await item.close();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('is not used while Redis is away, and starts empty once it is back', async () => {
    const { link, cache } = await node('outage:');
    const s = session(new Clock());
    expect(remember(cache, s)).toBe(s.row);

    // Checked while it is down: on a busy machine the link may be back before a restart returns.
    await redis.restartEmpty(async () => {
      await expect.poll(() => link.available).toBe(false);
      expect(lookup(cache, s)).toBeUndefined();
      // Nothing verified meanwhile is kept: its end could not be heard.
      const meanwhile = session(new Clock());
      expect(remember(cache, meanwhile)).toBeUndefined();
      expect(cache.size.sessions).toBe(1);
    });

    await expect.poll(() => link.available, { timeout: 10_000 }).toBe(true);
    expect(cache.size).toEqual({ tokens: 0, sessions: 0, users: 0 });
    // Unused until every process has subscribed again, then used as before.
    expect(remember(cache, s)).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, RESYNC_MS));
    expect(remember(cache, s)).toBe(s.row);
  });

  it('a process that did not notice a pause forgets everything when another one is back', async () => {
    const prefix = 'pause:';
    const noticing = await node(prefix);
    const unaware = await node(prefix);
    const s = session(new Clock());
    remember(noticing.cache, s);
    remember(unaware.cache, s);

    redis.pause();
    // One process notices (a call of its own times out); the other makes no Redis call meanwhile.
    await expect(noticing.link.call((c) => c.ping())).rejects.toThrow();
    expect(unaware.link.available).toBe(true);
    // A logout now: its message is never sent, so the other process never hears it.
    await noticing.cache.sessionEnded(s.claims.jti);
    expect(lookup(noticing.cache, s)).toBeUndefined();
    expect(lookup(unaware.cache, s)).toBe(s.row);

    redis.resume();
    await expect.poll(() => noticing.link.available, { timeout: 10_000 }).toBe(true);
    // Once the others have subscribed again, the one that noticed asks them all to forget.
    await expect
      .poll(() => unaware.cache.size, { timeout: 10_000 })
      .toEqual({ tokens: 0, sessions: 0, users: 0 });
    expect(lookup(unaware.cache, s)).toBeUndefined();
  });
});
