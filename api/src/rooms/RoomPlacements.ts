/**
 * Which media server hosts a room: the one that announces holding it, else the one it was
 * placed on while that server still announces itself, otherwise the least-loaded live one,
 * recorded so every later member goes to the same place. A room is never split by a bus
 * fault: what Redis forgot, the announcements still say (RoomHosts), and just after an outage
 * a room no server has announced yet is not placed anew until the servers have spoken.
 * A member who could not reach the room's server says so when it asks again: the server is
 * probed (MediaServers.confirm) and, if dead, the room moves at once instead of after the
 * announcements' timeout. A room whose server is draining moves too: its members, asked to
 * join again, are the first to come here for its new place.
 */
import { AppError } from '../errors.ts';
import type { KnownMediaServer, MediaServers } from '../mediaServers/MediaServers.ts';
import type { PlacementStore } from './PlacementStore.ts';

/** Who holds rooms now, as the media servers announce it (RoomMembership). */
export interface RoomHosts {
  /** The live media server that announces holding `roomId`, or null. */
  hostOf(roomId: string): KnownMediaServer | null;
  /** True for a while after a bus outage, until every live media server has announced itself again. */
  readonly settling: boolean;
}

export class RoomPlacements {
  constructor(
    readonly store: PlacementStore,
    readonly servers: MediaServers,
    readonly hosts: RoomHosts | null = null,
  ) {}

  /**
   * The media server for `roomId`; MEDIA_UNAVAILABLE (503) when none is live, ROOMS_UNAVAILABLE
   * (503) while a bus outage settles and no server has said it holds the room. `unreachable`
   * is the `/rtc` URL the member could not reach, if any: it counts only for the room's server.
   */
  async place(roomId: string, unreachable?: string): Promise<KnownMediaServer> {
    const host = await this.#unlessDead(this.hosts?.hostOf(roomId) ?? null, unreachable);
    const previous = await this.store.get(roomId);
    if (host) {
      // Recorded again if Redis lost it, so every process agrees without an announcement.
      if (previous !== host.id) await this.store.claim(roomId, host.id, previous);
      return this.#roomy(host);
    }
    const current = await this.#unlessDead(
      previous === null ? null : this.servers.get(previous),
      unreachable,
    );
    if (current) return this.#roomy(current);
    // Its server may hold it and not have announced itself since the bus came back.
    if (this.hosts?.settling) throw new AppError('ROOMS_UNAVAILABLE');
    const best = this.servers.leastLoaded({ notFull: true }) ?? this.servers.leastLoaded();
    if (!best) throw new AppError('MEDIA_UNAVAILABLE');
    const chosen = await this.store.claim(roomId, best.id, previous);
    // Another process placed it at the same moment: go where it did, if that one is live.
    return this.servers.get(chosen) ?? best;
  }

  /**
   * Where a newcomer to a room held by `server` goes: there, unless it is full and another media
   * server is not; then to that one, which opens a part of the room linked to the first (a room
   * across media servers). The room stays recorded as `server`'s.
   */
  #roomy(server: KnownMediaServer): KnownMediaServer {
    if (!server.load.full) return server;
    return this.servers.leastLoaded({ notFull: true, except: server.id }) ?? server;
  }

  /** `server`, unless it is draining, or the member could not reach it and a probe found it dead. */
  async #unlessDead(
    server: KnownMediaServer | null,
    unreachable: string | undefined,
  ): Promise<KnownMediaServer | null> {
    if (server?.draining) return null;
    if (!server || server.url !== unreachable) return server;
    return (await this.servers.confirm(server.id)) ? server : null;
  }

  /** Forgets a deleted room. */
  forget(roomId: string): Promise<void> {
    return this.store.remove(roomId);
  }
}
