/**
 * Presence as seen from one API process: which users have tabs connected here,
 * the grace period before a user whose last tab closed counts as offline (so a
 * reload does not flicker), and telling friends when someone comes or goes.
 */
import { CALL_TIMERS } from '@voice/protocol';
import type { Notifier } from '../bus/Notifier.ts';
import type { Db } from '../db/index.ts';
import type { FriendRepository } from '../friends/FriendRepository.ts';
import type { Logger } from '../logger.ts';
import type { PresenceStore } from './PresenceStore.ts';

export interface PresenceDeps {
  db: Db;
  store: PresenceStore;
  friends: FriendRepository;
  notifier: Notifier;
  logger: Logger;
  /** How long a user with no tab left stays online; the spec's 5 s by default. */
  disconnectWaitMs?: number;
}

export class Presence {
  /** Open connections here, per user. */
  #connections = new Map<string, number>();
  #offlineTimers = new Map<string, NodeJS.Timeout>();
  readonly #waitMs: number;
  #closed = false;

  constructor(readonly deps: PresenceDeps) {
    this.#waitMs = deps.disconnectWaitMs ?? CALL_TIMERS.disconnectWaitMs;
    deps.store.onExpired((userId) => {
      this.#wentOffline(userId).catch((error: unknown) =>
        deps.logger.error('presence expiry failed', { error }),
      );
    });
  }

  /** Number of users with a connection on this process. */
  get localUsers(): number {
    return this.#connections.size;
  }

  /** A tab of `userId` connected here. */
  async connected(userId: string): Promise<void> {
    this.#connections.set(userId, (this.#connections.get(userId) ?? 0) + 1);
    const timer = this.#offlineTimers.get(userId);
    if (timer) {
      // Back within the grace period: friends never saw them leave.
      clearTimeout(timer);
      this.#offlineTimers.delete(userId);
      return;
    }
    if (this.#connections.get(userId) !== 1) return;
    if (await this.deps.store.connect(userId)) await this.#announce(userId, 'online');
  }

  /** A tab of `userId` closed here. */
  disconnected(userId: string): void {
    const left = (this.#connections.get(userId) ?? 1) - 1;
    if (left > 0) {
      this.#connections.set(userId, left);
      return;
    }
    this.#connections.delete(userId);
    if (this.#closed) return;
    const timer = setTimeout(() => {
      this.#offlineTimers.delete(userId);
      this.#leave(userId).catch((error: unknown) =>
        this.deps.logger.error('presence leave failed', { error }),
      );
    }, this.#waitMs);
    this.#offlineTimers.set(userId, timer);
  }

  /** Takes every user held here offline at once (clean shutdown). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const timer of this.#offlineTimers.values()) clearTimeout(timer);
    const users = [...new Set([...this.#connections.keys(), ...this.#offlineTimers.keys()])];
    this.#connections.clear();
    this.#offlineTimers.clear();
    await Promise.allSettled(users.map((userId) => this.#leave(userId)));
  }

  async #leave(userId: string): Promise<void> {
    if (this.#connections.has(userId)) return;
    if (await this.deps.store.disconnect(userId)) await this.#wentOffline(userId);
  }

  async #wentOffline(userId: string): Promise<void> {
    const lastSeen = new Date();
    await this.deps.db('users').where({ id: userId }).update({ last_seen: lastSeen });
    await this.#announce(userId, 'offline', lastSeen.toISOString());
  }

  async #announce(userId: string, change: 'online' | 'offline', lastSeen?: string): Promise<void> {
    const friendIds = await this.deps.friends.friendIds(userId);
    if (change === 'online') await this.deps.notifier.notifyMany(friendIds, 'friend-online', { userId });
    else
      await this.deps.notifier.notifyMany(friendIds, 'friend-offline', {
        userId,
        last_seen: lastSeen as string,
      });
  }
}
