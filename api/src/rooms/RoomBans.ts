/**
 * Keeps people an admin or moderator removed from a room out of it for ROOM_LIMITS
 * .kickBanSeconds (issue 19). Media servers say who removed whom (RoomKick, on the bus); every
 * API process hears it, and the store (Redis when there is one) makes the ban the whole
 * service's. The one who removed is checked against the database, so a kick is only a ban when
 * it came from the room's admin or one of its moderators, and never keeps the admin out.
 */
import { type Bus, roomKicksChannel } from '@voice/bus';
import { ROOM_LIMITS, type RoomKick } from '@voice/protocol';
import type { Logger } from '../logger.ts';
import type { BanStore } from './BanStore.ts';
import type { RoomRepository } from './RoomRepository.ts';

const BAN_MS = ROOM_LIMITS.kickBanSeconds * 1000;

export class RoomBans {
  readonly #store: BanStore;
  readonly #rooms: RoomRepository;
  readonly #logger: Logger;
  #unsubscribe: (() => Promise<void>) | null = null;

  static async create(bus: Bus, store: BanStore, rooms: RoomRepository, logger: Logger): Promise<RoomBans> {
    const bans = new RoomBans(store, rooms, logger);
    bans.#unsubscribe = await bus.subscribe(roomKicksChannel, (kick) =>
      bans.removed(kick).catch((error: unknown) => logger.warn('room removal not kept as a ban', { error })),
    );
    return bans;
  }

  private constructor(store: BanStore, rooms: RoomRepository, logger: Logger) {
    this.#store = store;
    this.#rooms = rooms;
    this.#logger = logger;
  }

  /** `kick.by` removed `kick.peerId` from `kick.roomId`: a ban, if they had the right. */
  async removed({ roomId, peerId, by }: RoomKick): Promise<void> {
    const [removerRole, removedRole] = await Promise.all([
      this.#rooms.roleOf(roomId, by),
      this.#rooms.roleOf(roomId, peerId),
    ]);
    if (removerRole === null || removedRole === 'admin') {
      this.#logger.warn('a removal from a room by someone without the right was not kept', { roomId });
      return;
    }
    await this.#store.ban(roomId, peerId, BAN_MS);
  }

  isBanned(roomId: string, userId: string): Promise<boolean> {
    return this.#store.isBanned(roomId, userId);
  }

  /** An admin or moderator invited `userIds` again: they may come in at once. */
  lift(roomId: string, userIds: readonly string[]): Promise<void> {
    return this.#store.lift(roomId, userIds);
  }

  async close(): Promise<void> {
    const unsubscribe = this.#unsubscribe;
    this.#unsubscribe = null;
    await unsubscribe?.();
  }
}
