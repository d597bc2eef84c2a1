/**
 * Stand-ins for media servers in room tests: announcements and member lists published on
 * the API's own bus, as real media servers publish them.
 */
import { mediaAnnounceChannel, roomMembersChannel } from '@voice/bus';
import { type AnnouncedRoom, MEDIA_ANNOUNCE } from '@voice/protocol';
import type { TestServer } from '../testing/TestServer.ts';

/** Media servers that keep announcing (with the load they were last given) until stopped. */
export class FakeMediaServers {
  readonly #loads = new Map<string, number>();
  /** The servers announcing themselves full. */
  readonly #full = new Set<string>();
  /** The rooms each server announces, when it was given any. */
  readonly #rooms = new Map<string, AnnouncedRoom[]>();
  readonly #timer: NodeJS.Timeout;

  constructor(readonly server: TestServer) {
    this.#timer = setInterval(() => {
      for (const [id, routers] of this.#loads) void this.#publish(id, routers);
    }, MEDIA_ANNOUNCE.intervalMs);
  }

  /** The URL server `id` announces. */
  static url(id: string): string {
    return `ws://${id}.media.test/rtc`;
  }

  /**
   * Announces `id` with `routers` rooms on its one worker (`full`: it takes no new part of a
   * room), and waits until the API has it.
   */
  async announce(id: string, routers = 0, { full = false } = {}): Promise<void> {
    this.#loads.set(id, routers);
    if (full) this.#full.add(id);
    else this.#full.delete(id);
    await this.#publish(id, routers);
    await until(() => {
      const load = this.server.services.mediaServers.get(id)?.load;
      return load?.routers === routers && (load.full === true) === full;
    });
  }

  /** Announces `id` holding `rooms` (with their members and the seats its ports have left). */
  async announceRooms(id: string, rooms: AnnouncedRoom[]): Promise<void> {
    this.#rooms.set(id, rooms);
    await this.#publish(id, this.#loads.get(id) ?? 0);
  }

  /** `id` says goodbye. */
  async leave(id: string): Promise<void> {
    this.#loads.delete(id);
    this.#rooms.delete(id);
    await this.server.services.bus.publish(mediaAnnounceChannel, {
      id,
      url: FakeMediaServers.url(id),
      load: { workers: 1, routers: 0 },
      gone: true,
    });
    await until(() => this.server.services.mediaServers.get(id) === null);
  }

  /** Says, as server `serverId`, who is in `roomId` now. */
  async members(serverId: string, roomId: string, peers: string[]): Promise<void> {
    await this.server.services.bus.publish(roomMembersChannel, { serverId, roomId, peers });
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#loads.clear();
    this.#rooms.clear();
  }

  #publish(id: string, routers: number): Promise<void> {
    const rooms = this.#rooms.get(id);
    return this.server.services.bus.publish(mediaAnnounceChannel, {
      id,
      url: FakeMediaServers.url(id),
      load: { workers: 1, routers, ...(this.#full.has(id) ? { full: true as const } : {}) },
      ...(rooms ? { rooms } : {}),
    });
  }
}

/** Waits until `done()` holds (the bus delivers from Redis a moment later); throws after 5 s. */
export async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('the API did not hear the announcement');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
