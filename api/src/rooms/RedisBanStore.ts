/** Bans from rooms in Redis, shared by every API process: `room-ban:<roomId>:<userId>`, expiring by itself. */
import type { RedisLink } from '@voice/bus';
import type { BanStore } from './BanStore.ts';

export class RedisBanStore implements BanStore {
  constructor(
    readonly link: RedisLink,
    readonly prefix: string,
  ) {}

  async ban(roomId: string, userId: string, ttlMs: number): Promise<void> {
    await this.link.call((redis) => redis.set(this.#key(roomId, userId), '1', { PX: ttlMs }));
  }

  async isBanned(roomId: string, userId: string): Promise<boolean> {
    return (await this.link.call((redis) => redis.exists(this.#key(roomId, userId)))) === 1;
  }

  async lift(roomId: string, userIds: readonly string[]): Promise<void> {
    if (userIds.length === 0) return;
    await this.link.call((redis) => redis.del(userIds.map((userId) => this.#key(roomId, userId))));
  }

  #key(roomId: string, userId: string): string {
    return `${this.prefix}room-ban:${roomId}:${userId}`;
  }
}
