/**
 * The media servers this API knows of, from their announcements on the bus. Rooms are
 * placed on the least-loaded one; one not heard from for MEDIA_ANNOUNCE.ttlMs, or that
 * said goodbye, is out of placement.
 */
import { type Bus, mediaAnnounceChannel } from '@voice/bus';
import { MEDIA_ANNOUNCE, type MediaServerAnnouncement } from '@voice/protocol';
import type { Logger } from '../logger.ts';

/** A media server as the API sees it. */
export interface KnownMediaServer extends MediaServerAnnouncement {
  /** Date.now() of its latest announcement. */
  seenAt: number;
}

export class MediaServers {
  readonly #servers = new Map<string, KnownMediaServer>();
  readonly #logger: Logger;
  readonly #ttlMs: number;
  #unsubscribe: (() => Promise<void>) | null = null;
  #closed = false;

  static async create(bus: Bus, logger: Logger, ttlMs: number = MEDIA_ANNOUNCE.ttlMs): Promise<MediaServers> {
    const servers = new MediaServers(logger, ttlMs);
    servers.#unsubscribe = await bus.subscribe(mediaAnnounceChannel, (message) =>
      servers.#onAnnouncement(message),
    );
    return servers;
  }

  private constructor(logger: Logger, ttlMs: number) {
    this.#logger = logger;
    this.#ttlMs = ttlMs;
  }

  /** The live media servers, freshest first. */
  list(): KnownMediaServer[] {
    this.#expire();
    return [...this.#servers.values()].sort((a, b) => b.seenAt - a.seenAt);
  }

  /** The media server `id` if it is live (announcing, not gone), else null. */
  get(id: string): KnownMediaServer | null {
    this.#expire();
    return this.#servers.get(id) ?? null;
  }

  /** The live media server with the fewest routers per worker, or null when none is up. */
  leastLoaded(): KnownMediaServer | null {
    let best: KnownMediaServer | null = null;
    const score = (s: KnownMediaServer) => s.load.routers / Math.max(1, s.load.workers);
    for (const server of this.list()) {
      if (server.load.workers === 0) continue;
      if (!best || score(server) < score(best)) best = server;
    }
    return best;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#servers.clear();
    await this.#unsubscribe?.();
  }

  #onAnnouncement({ gone, ...announcement }: MediaServerAnnouncement): void {
    if (gone) {
      if (this.#servers.delete(announcement.id))
        this.#logger.info('media server left', { id: announcement.id });
      return;
    }
    if (!this.#servers.has(announcement.id)) {
      this.#logger.info('media server joined', { id: announcement.id, url: announcement.url });
    }
    this.#servers.set(announcement.id, { ...announcement, seenAt: Date.now() });
  }

  #expire(): void {
    const cutoff = Date.now() - this.#ttlMs;
    for (const [id, server] of this.#servers) {
      if (server.seenAt >= cutoff) continue;
      this.#servers.delete(id);
      this.#logger.warn('media server stopped announcing; out of placement', { id });
    }
  }
}
