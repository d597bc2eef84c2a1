/**
 * Presence in Redis, shared by every API process.
 *
 *   presence:user:<userId>      hash: nodeId → 1 for each process holding the user
 *   presence:node:<nodeId>      set of the users a process holds
 *   presence:alive:<nodeId>     heartbeat key, expires unless renewed
 *   presence:nodes              set of every process id seen
 *   presence:incall             set of users in a call
 *
 * Every process renews its heartbeat and sweeps: a process whose heartbeat has
 * expired is presumed dead, and its users are taken offline by whichever live
 * process wins the sweep lock.
 *
 * Every call goes through the RedisLink, so a hung Redis costs a call at most its
 * deadline: reads then answer null (unknown) and writes throw, and `resync` restores
 * this process's part once Redis is back.
 */
import { randomUUID } from 'node:crypto';
import { type RedisClient, type RedisLink, RedisUnavailableError } from '@voice/bus';
import { PRESENCE } from '@voice/protocol';
import type { Logger } from '../logger.ts';
import type { PresenceStore, ResyncOutcome } from './PresenceStore.ts';

// Users per MULTI when a whole process's users are written back.
const RESYNC_BATCH = 200;

export interface RedisPresenceOptions {
  prefix: string;
  logger: Logger;
  heartbeatMs?: number;
  nodeTtlMs?: number;
}

export class RedisPresenceStore implements PresenceStore {
  readonly nodeId = randomUUID();
  readonly #link: RedisLink;
  readonly #key: (name: string) => string;
  readonly #logger: Logger;
  readonly #heartbeatMs: number;
  readonly #nodeTtlMs: number;
  #timer: NodeJS.Timeout | null = null;
  #expiredHandlers: Array<(userId: string) => void> = [];
  #lastBeat = 0;
  #sweepNotBefore = 0;
  #closed = false;

  private constructor(link: RedisLink, options: RedisPresenceOptions) {
    this.#link = link;
    this.#key = (name) => `${options.prefix}presence:${name}`;
    this.#logger = options.logger;
    this.#heartbeatMs = options.heartbeatMs ?? PRESENCE.heartbeatMs;
    this.#nodeTtlMs = options.nodeTtlMs ?? PRESENCE.nodeTtlMs;
  }

  static async create(link: RedisLink, options: RedisPresenceOptions): Promise<RedisPresenceStore> {
    const store = new RedisPresenceStore(link, options);
    await store.#beat();
    store.#timer = setInterval(() => {
      store.#beat().catch((error: unknown) => {
        // The link has said Redis is away; a line per beat would add nothing.
        if (!(error instanceof RedisUnavailableError))
          store.#logger.error('presence heartbeat failed', { error });
      });
    }, store.#heartbeatMs);
    store.#timer.unref();
    return store;
  }

  async connect(userId: string) {
    const [cameOnline] = await this.#hold([userId]);
    return cameOnline !== undefined;
  }

  async disconnect(userId: string) {
    return this.#remove(this.nodeId, userId);
  }

  async onlineAmong(userIds: readonly string[]) {
    if (userIds.length === 0) return new Set<string>();
    const results = await this.#read((redis) => {
      const multi = redis.multi();
      for (const id of userIds) multi.exists(this.#key(`user:${id}`));
      return multi.exec();
    });
    return results && new Set(userIds.filter((_, i) => Number(results[i]) > 0));
  }

  async setInCall(userId: string, inCall: boolean) {
    await this.#link.call((redis) =>
      inCall ? redis.sAdd(this.#key('incall'), userId) : redis.sRem(this.#key('incall'), userId),
    );
  }

  async inCallAmong(userIds: readonly string[]) {
    if (userIds.length === 0) return new Set<string>();
    const flags = await this.#read((redis) => redis.smIsMember(this.#key('incall'), [...userIds]));
    return flags && new Set(userIds.filter((_, i) => Number(flags[i]) === 1));
  }

  async resync(local: readonly string[], departed: readonly string[]): Promise<ResyncOutcome> {
    await this.#beat();
    const held = await this.#link.call((redis) => redis.sMembers(this.#key(`node:${this.nodeId}`)));
    const here = new Set(local);
    const offline: string[] = [];
    for (const userId of new Set([...held, ...departed])) {
      if (!here.has(userId) && (await this.#remove(this.nodeId, userId))) offline.push(userId);
    }
    const online: string[] = [];
    for (let i = 0; i < local.length; i += RESYNC_BATCH)
      online.push(...(await this.#hold(local.slice(i, i + RESYNC_BATCH))));
    return { online, offline };
  }

  /** The subset of `nodeIds` whose heartbeat is current; null when Redis cannot say now. */
  async nodesAlive(nodeIds: readonly string[]): Promise<Set<string> | null> {
    if (nodeIds.length === 0) return new Set();
    const results = await this.#read((redis) => {
      const multi = redis.multi();
      for (const id of nodeIds) multi.exists(this.#key(`alive:${id}`));
      return multi.exec();
    });
    return results && new Set(nodeIds.filter((_, i) => Number(results[i]) > 0));
  }

  onExpired(handler: (userId: string) => void): void {
    this.#expiredHandlers.push(handler);
  }

  /** Stops the heartbeat and takes this process's users offline (a clean shutdown). */
  async close() {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    try {
      await this.#link.call((redis) => redis.del(this.#key(`alive:${this.nodeId}`)));
    } catch (error) {
      // Without Redis the heartbeat lapses by itself and another process sweeps.
      if (!(error instanceof RedisUnavailableError)) throw error;
    }
  }

  /** A read that answers null when Redis is unavailable. */
  async #read<T>(command: (redis: RedisClient) => Promise<T>): Promise<T | null> {
    try {
      return await this.#link.call(command);
    } catch (error) {
      if (error instanceof RedisUnavailableError) return null;
      throw error;
    }
  }

  /** Records that this process holds `userIds`; returns those nobody held before. */
  async #hold(userIds: readonly string[]): Promise<string[]> {
    if (userIds.length === 0) return [];
    const results = await this.#link.call((redis) => {
      const multi = redis.multi();
      for (const userId of userIds) {
        multi
          .hLen(this.#key(`user:${userId}`))
          .hSet(this.#key(`user:${userId}`), this.nodeId, '1')
          .sAdd(this.#key(`node:${this.nodeId}`), userId);
      }
      return multi.exec();
    });
    return userIds.filter((_, i) => Number(results[i * 3]) === 0);
  }

  /** Removes `nodeId`'s hold on `userId`; true when nobody holds the user any more. */
  async #remove(nodeId: string, userId: string): Promise<boolean> {
    const [, after] = await this.#link.call((redis) =>
      redis
        .multi()
        .hDel(this.#key(`user:${userId}`), nodeId)
        .hLen(this.#key(`user:${userId}`))
        .sRem(this.#key(`node:${nodeId}`), userId)
        .sRem(this.#key('incall'), userId)
        .exec(),
    );
    return Number(after) === 0;
  }

  async #beat(): Promise<void> {
    if (this.#closed) return;
    await this.#link.call((redis) =>
      redis
        .multi()
        .set(this.#key(`alive:${this.nodeId}`), '1', { PX: this.#nodeTtlMs })
        .sAdd(this.#key('nodes'), this.nodeId)
        .exec(),
    );
    const now = Date.now();
    // Our own beats stopped (Redis hung or was away), so other processes' did too and their
    // heartbeat keys may have lapsed meanwhile: give them a full TTL to beat before any sweep.
    if (this.#lastBeat > 0 && now - this.#lastBeat > 2 * this.#heartbeatMs)
      this.#sweepNotBefore = now + this.#nodeTtlMs;
    this.#lastBeat = now;
    if (now >= this.#sweepNotBefore) await this.#sweep();
  }

  async #sweep(): Promise<void> {
    const redis = this.#link;
    const nodes = await redis.call((r) => r.sMembers(this.#key('nodes')));
    for (const nodeId of nodes) {
      if (nodeId === this.nodeId) continue;
      if (await redis.call((r) => r.exists(this.#key(`alive:${nodeId}`)))) continue;
      // One live process reaps a dead one; the lock outlives a slow sweep.
      const won = await redis.call((r) =>
        r.set(this.#key(`sweep:${nodeId}`), this.nodeId, { NX: true, PX: 60_000 }),
      );
      if (won !== 'OK') continue;
      const users = await redis.call((r) => r.sMembers(this.#key(`node:${nodeId}`)));
      this.#logger.warn(`presence: process ${nodeId} stopped beating; taking ${users.length} users offline`);
      for (const userId of users) {
        if (await this.#remove(nodeId, userId)) for (const handler of this.#expiredHandlers) handler(userId);
      }
      await redis.call((r) =>
        r
          .multi()
          .del(this.#key(`node:${nodeId}`))
          .sRem(this.#key('nodes'), nodeId)
          .exec(),
      );
    }
  }
}
