/**
 * Which media server hosts a room: the one it was placed on while that server still
 * announces itself, otherwise the least-loaded live one, recorded so every later member
 * goes to the same place. A member who could not reach the room's server says so when it
 * asks again: the server is probed (MediaServers.confirm) and, if dead, the room moves at
 * once instead of after the announcements' timeout.
 */
import { AppError } from '../errors.ts';
import type { KnownMediaServer, MediaServers } from '../media/MediaServers.ts';
import type { PlacementStore } from './PlacementStore.ts';

export class RoomPlacements {
  constructor(
    readonly store: PlacementStore,
    readonly servers: MediaServers,
  ) {}

  /**
   * The media server for `roomId`; MEDIA_UNAVAILABLE (503) when none is live. `unreachable` is
   * the `/rtc` URL the member could not reach, if any: it counts only for the room's server.
   */
  async place(roomId: string, unreachable?: string): Promise<KnownMediaServer> {
    const previous = await this.store.get(roomId);
    const current = await this.#unlessDead(
      previous === null ? null : this.servers.get(previous),
      unreachable,
    );
    if (current) return current;
    const best = this.servers.leastLoaded();
    if (!best) throw new AppError('MEDIA_UNAVAILABLE');
    const chosen = await this.store.claim(roomId, best.id, previous);
    // Another process placed it at the same moment: go where it did, if that one is live.
    return this.servers.get(chosen) ?? best;
  }

  /** `server`, unless the member could not reach it and a probe found it dead. */
  async #unlessDead(
    server: KnownMediaServer | null,
    unreachable: string | undefined,
  ): Promise<KnownMediaServer | null> {
    if (!server || server.url !== unreachable) return server;
    return (await this.servers.confirm(server.id)) ? server : null;
  }

  /** Forgets a deleted room. */
  forget(roomId: string): Promise<void> {
    return this.store.remove(roomId);
  }
}
