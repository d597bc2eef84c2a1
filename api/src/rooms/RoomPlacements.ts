/**
 * Which media server hosts a room: the one it was placed on while that server still
 * announces itself, otherwise the least-loaded live one, recorded so every later member
 * goes to the same place.
 */
import { AppError } from '../errors.ts';
import type { KnownMediaServer, MediaServers } from '../media/MediaServers.ts';
import type { PlacementStore } from './PlacementStore.ts';

export class RoomPlacements {
  constructor(
    readonly store: PlacementStore,
    readonly servers: MediaServers,
  ) {}

  /** The media server for `roomId`; MEDIA_UNAVAILABLE (503) when none is live. */
  async place(roomId: string): Promise<KnownMediaServer> {
    const previous = await this.store.get(roomId);
    const current = previous === null ? null : this.servers.get(previous);
    if (current) return current;
    const best = this.servers.leastLoaded();
    if (!best) throw new AppError('MEDIA_UNAVAILABLE');
    const chosen = await this.store.claim(roomId, best.id, previous);
    // Another process placed it at the same moment: go where it did, if that one is live.
    return this.servers.get(chosen) ?? best;
  }

  /** Forgets a deleted room. */
  forget(roomId: string): Promise<void> {
    return this.store.remove(roomId);
  }
}
