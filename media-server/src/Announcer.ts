/**
 * Tells the API processes, over the bus, that this media server is alive, where browsers
 * reach it and how loaded it is; the API places new rooms on the least-loaded one.
 */
import { type Bus, mediaAnnounceChannel } from '@voice/bus';
import { MEDIA_ANNOUNCE, type MediaServerAnnouncement, type MediaServerLoad } from '@voice/protocol';
import type { Logger } from './types.ts';

/** Options of an Announcer. */
export interface AnnouncerOptions {
  id: string;
  url: string;
  bus: Bus;
  logger: Logger;
  /** Read at every announcement. */
  load: () => MediaServerLoad;
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
    await this.#publish({ id: this.#options.id, url: this.#options.url, load: this.#options.load() });
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

  async #publish(message: MediaServerAnnouncement): Promise<void> {
    try {
      await this.#options.bus.publish(mediaAnnounceChannel, message);
    } catch (error) {
      this.#options.logger.warn(`media server: announcement failed: ${(error as Error).message}`);
    }
  }
}
