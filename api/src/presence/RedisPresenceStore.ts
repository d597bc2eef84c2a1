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
 */
import { randomUUID } from 'node:crypto';
import { PRESENCE } from '@voice/protocol';
import type { createClient } from 'redis';
import type { Logger } from '../logger.ts';
import type { PresenceStore } from './PresenceStore.ts';

type RedisClient = ReturnType<typeof createClient>;

export interface RedisPresenceOptions {
  prefix: string;
  logger: Logger;
  heartbeatMs?: number;
  nodeTtlMs?: number;
}

export class RedisPresenceStore implements PresenceStore {
  readonly nodeId = randomUUID();
  readonly #redis: RedisClient;
  readonly #key: (name: string) => string;
  readonly #logger: Logger;
  readonly #heartbeatMs: number;
  readonly #nodeTtlMs: number;
  #timer: NodeJS.Timeout | null = null;
  #expiredHandlers: Array<(userId: string) => void> = [];
  #closed = false;

  private constructor(redis: RedisClient, options: RedisPresenceOptions) {
    this.#redis = redis;
    this.#key = (name) => `${options.prefix}presence:${name}`;
    this.#logger = options.logger;
    this.#heartbeatMs = options.heartbeatMs ?? PRESENCE.heartbeatMs;
    this.#nodeTtlMs = options.nodeTtlMs ?? PRESENCE.nodeTtlMs;
  }

  static async create(redis: RedisClient, options: RedisPresenceOptions): Promise<RedisPresenceStore> {
    const store = new RedisPresenceStore(redis, options);
    await store.#beat();
    store.#timer = setInterval(() => {
      store.#beat().catch((error: unknown) => store.#logger.error('presence heartbeat failed', { error }));
    }, store.#heartbeatMs);
    store.#timer.unref();
    return store;
  }

  async connect(userId: string) {
    const [before] = await this.#redis
      .multi()
      .hLen(this.#key(`user:${userId}`))
      .hSet(this.#key(`user:${userId}`), this.nodeId, '1')
      .sAdd(this.#key(`node:${this.nodeId}`), userId)
      .exec();
    return Number(before) === 0;
  }

  async disconnect(userId: string) {
    return this.#remove(this.nodeId, userId);
  }

  async onlineAmong(userIds: readonly string[]) {
    if (userIds.length === 0) return new Set<string>();
    const multi = this.#redis.multi();
    for (const id of userIds) multi.exists(this.#key(`user:${id}`));
    const results = await multi.exec();
    return new Set(userIds.filter((_, i) => Number(results[i]) > 0));
  }

  async setInCall(userId: string, inCall: boolean) {
    if (inCall) await this.#redis.sAdd(this.#key('incall'), userId);
    else await this.#redis.sRem(this.#key('incall'), userId);
  }

  async inCallAmong(userIds: readonly string[]) {
    if (userIds.length === 0) return new Set<string>();
    const flags = await this.#redis.smIsMember(this.#key('incall'), [...userIds]);
    return new Set(userIds.filter((_, i) => Number(flags[i]) === 1));
  }

  onExpired(handler: (userId: string) => void): void {
    this.#expiredHandlers.push(handler);
  }

  /** Stops the heartbeat and takes this process's users offline (a clean shutdown). */
  async close() {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.#redis.del(this.#key(`alive:${this.nodeId}`));
  }

  /** Removes `nodeId`'s hold on `userId`; true when nobody holds the user any more. */
  async #remove(nodeId: string, userId: string): Promise<boolean> {
    const [, after] = await this.#redis
      .multi()
      .hDel(this.#key(`user:${userId}`), nodeId)
      .hLen(this.#key(`user:${userId}`))
      .sRem(this.#key(`node:${nodeId}`), userId)
      .sRem(this.#key('incall'), userId)
      .exec();
    return Number(after) === 0;
  }

  async #beat(): Promise<void> {
    if (this.#closed) return;
    await this.#redis
      .multi()
      .set(this.#key(`alive:${this.nodeId}`), '1', { PX: this.#nodeTtlMs })
      .sAdd(this.#key('nodes'), this.nodeId)
      .exec();
    await this.#sweep();
  }

  async #sweep(): Promise<void> {
    const nodes = await this.#redis.sMembers(this.#key('nodes'));
    for (const nodeId of nodes) {
      if (nodeId === this.nodeId) continue;
      if (await this.#redis.exists(this.#key(`alive:${nodeId}`))) continue;
      // One live process reaps a dead one; the lock outlives a slow sweep.
      const won = await this.#redis.set(this.#key(`sweep:${nodeId}`), this.nodeId, { NX: true, PX: 60_000 });
      if (won !== 'OK') continue;
      const users = await this.#redis.sMembers(this.#key(`node:${nodeId}`));
      this.#logger.warn(`presence: process ${nodeId} stopped beating; taking ${users.length} users offline`);
      for (const userId of users) {
        if (await this.#remove(nodeId, userId)) for (const handler of this.#expiredHandlers) handler(userId);
      }
      await this.#redis
        .multi()
        .del(this.#key(`node:${nodeId}`))
        .sRem(this.#key('nodes'), nodeId)
        .exec();
    }
  }
}
