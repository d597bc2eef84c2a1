/**
 * Who was removed from which room lately and is kept out of it for a while (ROOM_LIMITS
 * .kickBanSeconds): RedisBanStore with REDIS_URL, so every API process refuses them; this memory
 * store otherwise. A ban ends by itself, or when an admin or moderator invites the person again.
 */

export interface BanStore {
  /** Keeps `userId` out of `roomId` for `ttlMs` from now (a second removal starts it again). */
  ban(roomId: string, userId: string, ttlMs: number): Promise<void>;
  isBanned(roomId: string, userId: string): Promise<boolean>;
  /** Lets `userIds` into `roomId` again at once. */
  lift(roomId: string, userIds: readonly string[]): Promise<void>;
}

/** A single process: bans in its own memory, each forgotten once it has run out. */
export class MemoryBanStore implements BanStore {
  /** `roomId userId` → when the ban ends (Date.now()). */
  readonly #until = new Map<string, number>();

  async ban(roomId: string, userId: string, ttlMs: number): Promise<void> {
    this.#prune();
    this.#until.set(banKey(roomId, userId), Date.now() + ttlMs);
  }

  async isBanned(roomId: string, userId: string): Promise<boolean> {
    this.#prune();
    return this.#until.has(banKey(roomId, userId));
  }

  async lift(roomId: string, userIds: readonly string[]): Promise<void> {
    for (const userId of userIds) this.#until.delete(banKey(roomId, userId));
  }

  #prune(): void {
    const now = Date.now();
    for (const [key, until] of this.#until) if (until <= now) this.#until.delete(key);
  }
}

/** The key of one person's ban from one room (ids never hold a space). */
export function banKey(roomId: string, userId: string): string {
  return `${roomId} ${userId}`;
}
