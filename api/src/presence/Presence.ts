/**
 * Presence as seen from one API process: which users have tabs connected here,
 * the grace period before a user whose last tab closed counts as offline (so a
 * reload does not flicker), and telling friends when someone comes or goes.
 *
 * The store may be unavailable for a while (Redis hung or restarting): tabs still come
 * and go here, and `resync` afterwards tells the store and friends what changed.
 */
import { CALL_TIMERS } from '@voice/protocol';
import type { Db } from '../db/index.ts';
import type { FriendRepository } from '../friends/FriendRepository.ts';
import type { Logger } from '../logger.ts';
import type { Notifier } from '../socket/Notifier.ts';
import type { PresenceStore, ResyncOutcome } from './PresenceStore.ts';

export interface PresenceDeps {
  db: Db;
  store: PresenceStore;
  friends: FriendRepository;
  notifier: Notifier;
  logger: Logger;
  /** How long a user with no tab left stays online; the spec's 5 s by default. */
  disconnectWaitMs?: number;
  /**
   * How long after a resync its changes are announced: long enough for every process to have
   * subscribed to the bus again after a Redis restart, so none misses the announcement.
   */
  resyncAnnounceDelayMs?: number;
}

/** How a tab went away. */
export interface DisconnectOptions {
  /**
   * The session ended (logout, revocation): no grace period, friends see the user go at
   * once when this was their last tab. A closed tab or a reload waits.
   */
  immediate?: boolean;
}

export class Presence {
  /** Open connections here, per user. */
  #connections = new Map<string, number>();
  #offlineTimers = new Map<string, NodeJS.Timeout>();
  /** Users who arrived here while the store could not be told (or could not answer). */
  #arrived = new Set<string>();
  /** Users who left here while the store could not be told. */
  #departed = new Set<string>();
  #announceTimers = new Set<NodeJS.Timeout>();
  #resyncs: Promise<void> = Promise.resolve();
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
    this.#departed.delete(userId);
    this.#arrived.delete(userId);
    let cameOnline: boolean;
    try {
      cameOnline = await this.deps.store.connect(userId);
    } catch (error) {
      // The tab works without the store; the resync after the outage announces the user
      // (the write may still land late, so the store's answer then cannot tell).
      this.#arrived.add(userId);
      this.deps.logger.debug('presence: store unavailable at connect', { error });
      return;
    }
    if (cameOnline) await this.#announce(userId, 'online');
  }

  /** A tab of `userId` closed here. */
  disconnected(userId: string, { immediate = false }: DisconnectOptions = {}): void {
    const left = (this.#connections.get(userId) ?? 1) - 1;
    if (left > 0) {
      this.#connections.set(userId, left);
      return;
    }
    this.#connections.delete(userId);
    if (this.#closed) return;
    if (immediate) {
      this.#leaveNow(userId);
      return;
    }
    const timer = setTimeout(() => {
      this.#offlineTimers.delete(userId);
      this.#leave(userId).catch((error: unknown) =>
        this.deps.logger.error('presence leave failed', { error }),
      );
    }, this.#waitMs);
    this.#offlineTimers.set(userId, timer);
  }

  /**
   * Tells the store again who is here, after it lost or missed changes (Redis restarted
   * empty, or hung while people came and went), and tells friends what changed meanwhile.
   */
  resync(): Promise<void> {
    // One at a time: two recoveries in a row must not interleave their writes.
    const run = this.#resyncs.then(() => this.#resyncOnce());
    this.#resyncs = run.catch(() => {});
    return run;
  }

  async #resyncOnce(): Promise<void> {
    if (this.#closed) return;
    // Users in their grace period still count as here.
    const local = [...new Set([...this.#connections.keys(), ...this.#offlineTimers.keys()])];
    const departed = [...this.#departed];
    const arrived = [...this.#arrived];
    this.#departed.clear();
    this.#arrived.clear();
    let outcome: ResyncOutcome;
    try {
      outcome = await this.deps.store.resync(local, departed);
    } catch (error) {
      // Away again: the next recovery resyncs.
      for (const userId of departed) if (!this.#isHere(userId)) this.#departed.add(userId);
      for (const userId of arrived) if (this.#isHere(userId)) this.#arrived.add(userId);
      throw error;
    }
    await this.#holdArrivedDuring(local);
    // Friends may have missed an arrival whatever the store says now; telling them twice is harmless.
    outcome = { ...outcome, online: [...new Set([...outcome.online, ...arrived])] };
    if (outcome.online.length === 0 && outcome.offline.length === 0) return;
    this.deps.logger.info(
      `presence: resynced ${local.length} users; ${outcome.online.length} came online and ${outcome.offline.length} went offline meanwhile`,
    );
    const timer = setTimeout(() => {
      this.#announceTimers.delete(timer);
      this.#announceResync(outcome).catch((error: unknown) =>
        this.deps.logger.error('presence resync announcement failed', { error }),
      );
    }, this.deps.resyncAnnounceDelayMs ?? 0);
    this.#announceTimers.add(timer);
  }

  /**
   * Users who connected here while a resync ran were stored by their connection, and the resync,
   * which read the store after but did not know them, may have swept them (a friend then showed
   * offline while connected): stored again. One the store cannot take now waits for the next.
   */
  async #holdArrivedDuring(local: readonly string[]): Promise<void> {
    const known = new Set(local);
    for (const userId of [...this.#connections.keys()]) {
      if (known.has(userId)) continue;
      try {
        await this.deps.store.connect(userId);
      } catch {
        this.#arrived.add(userId);
      }
    }
  }

  /** Takes every user held here offline at once (clean shutdown). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const timer of this.#announceTimers) clearTimeout(timer);
    this.#announceTimers.clear();
    for (const timer of this.#offlineTimers.values()) clearTimeout(timer);
    const users = [...new Set([...this.#connections.keys(), ...this.#offlineTimers.keys()])];
    this.#connections.clear();
    this.#offlineTimers.clear();
    await Promise.allSettled(users.map((userId) => this.#leave(userId)));
  }

  /** Ends the grace period of `userId` (if any) and takes them offline now unless a tab is back. */
  #leaveNow(userId: string): void {
    const timer = this.#offlineTimers.get(userId);
    if (timer) clearTimeout(timer);
    this.#offlineTimers.delete(userId);
    this.#leave(userId).catch((error: unknown) => this.deps.logger.error('presence leave failed', { error }));
  }

  async #leave(userId: string): Promise<void> {
    if (this.#connections.has(userId)) return;
    this.#arrived.delete(userId);
    let wentOffline: boolean;
    try {
      wentOffline = await this.deps.store.disconnect(userId);
    } catch (error) {
      // Remembered for the resync after the outage, which takes them offline then.
      if (!this.#closed) this.#departed.add(userId);
      this.deps.logger.debug('presence: store unavailable at disconnect', { error });
      return;
    }
    if (wentOffline) await this.#wentOffline(userId);
  }

  #isHere(userId: string): boolean {
    return this.#connections.has(userId) || this.#offlineTimers.has(userId);
  }

  async #announceResync({ online, offline }: ResyncOutcome): Promise<void> {
    // Whoever came or went again since the resync was announced by that change itself.
    for (const userId of online) if (this.#isHere(userId)) await this.#announce(userId, 'online');
    for (const userId of offline) if (!this.#isHere(userId)) await this.#wentOffline(userId);
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
