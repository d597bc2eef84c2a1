/**
 * Tells the API processes, over the bus, that this media server is alive, where browsers
 * reach it, how loaded it is and which rooms it holds; the API places new rooms on the
 * least-loaded one and keeps a room where it is held, whatever Redis forgot.
 */
import { type Bus, mediaAnnounceChannel } from '@voice/bus';
import {
  type AnnouncedRoom,
  MEDIA_ANNOUNCE,
  type MediaServerAnnouncement,
  type MediaServerLoad,
} from '@voice/protocol';
import type { Logger } from './types.ts';

/** Options of an Announcer. */
export interface AnnouncerOptions {
  id: string;
  url: string;
  bus: Bus;
  logger: Logger;
  /** Read at every announcement. */
  load: () => MediaServerLoad;
  /** The rooms held now, read at every announcement but the goodbye. */
  rooms?: () => AnnouncedRoom[];
  /** Whether it is draining (no new room or member is to be placed here), read at every announcement. */
  draining?: () => boolean;
  intervalMs?: number;
}

export class Announcer {
  readonly #options: AnnouncerOptions;
  readonly #timer: NodeJS.Timeout;
  #closed = false;

  constructor(options: AnnouncerOptions) {
    this.#options = options;
    this.#timer = setInterval(() => void this.announce(), options.intervalMs ?? MEDIA_ANNOUNCE.intervalMs);
    this.#timer.unref();
    void this.announce();
  }

  /** Publishes one announcement now; a failed publish is logged and the next one tries again. */
  async announce(): Promise<void> {
    if (this.#closed) return;
    const { id, url, load, rooms, draining } = this.#options;
    await this.#publish({
      id,
      url,
      load: load(),
      ...(rooms ? { rooms: this.#capped(rooms()) } : {}),
      ...(draining?.() ? { draining: true as const } : {}),
    });
  }

  /** Stops announcing and says goodbye, so the API stops placing rooms here at once. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    await this.#publish({
      id: this.#options.id,
      url: this.#options.url,
      load: this.#options.load(),
      gone: true,
    });
  }

  // The bus refuses a longer list, and with it the whole announcement; no worker carries that many.
  #capped(rooms: AnnouncedRoom[]): AnnouncedRoom[] {
    if (rooms.length <= MEDIA_ANNOUNCE.maxRooms) return rooms;
    this.#options.logger.warn(
      `media server: ${rooms.length} rooms, only ${MEDIA_ANNOUNCE.maxRooms} of them announced`,
    );
    return rooms.slice(0, MEDIA_ANNOUNCE.maxRooms);
  }

  async #publish(message: MediaServerAnnouncement): Promise<void> {
    try {
      await this.#options.bus.publish(mediaAnnounceChannel, message);
    } catch (error) {
      this.#options.logger.warn(`media server: announcement failed: ${(error as Error).message}`);
    }
  }
}
