/**
 * One media server: its mediasoup workers, its signalling endpoint (`/rtc`) and its
 * announcements on the bus. The API starts one in its own process tree (embedded), or
 * `media-server/src/main.ts` runs one as a process of its own (external); both the same way.
 */
import { randomUUID } from 'node:crypto';
import type { Bus } from '@voice/bus';
import type { MediaServerLoad } from '@voice/protocol';
import { Announcer } from './Announcer.ts';
import type { MediaConfig } from './config.ts';
import { type RtcAuthenticator, RtcServer } from './RtcServer.ts';
import type { Logger } from './types.ts';
import { WorkerPool } from './WorkerPool.ts';

/** Options of MediaServer.create(). */
export interface MediaServerOptions {
  config: MediaConfig;
  bus: Bus;
  logger: Logger;
  /** Where browsers reach `/rtc` (ws: or wss:), as announced to the API. */
  url: string;
  authenticate?: RtcAuthenticator;
}

export class MediaServer {
  /** Random per start: a restarted media server is announced as a new one. */
  readonly id = randomUUID();
  readonly url: string;
  readonly pool: WorkerPool;
  readonly rtc: RtcServer;
  readonly #announcer: Announcer;
  #closed = false;

  /** Starts the workers, then the endpoint and the announcements; nothing is left running if it fails. */
  static async create(options: MediaServerOptions): Promise<MediaServer> {
    const pool = await WorkerPool.create(options.config, { logger: options.logger });
    return new MediaServer(options, pool);
  }

  private constructor({ bus, logger, url, authenticate }: MediaServerOptions, pool: WorkerPool) {
    this.url = url;
    this.pool = pool;
    this.rtc = new RtcServer(authenticate ? { logger, authenticate } : { logger });
    this.#announcer = new Announcer({ id: this.id, url, bus, logger, load: () => this.load });
  }

  get closed(): boolean {
    return this.#closed;
  }

  get load(): MediaServerLoad {
    const { workers, routers } = this.pool.load;
    return { workers, routers };
  }

  /** Says goodbye on the bus, closes every connection and worker. Safe to call more than once. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.rtc.close();
    this.pool.close();
    await this.#announcer.close();
  }
}
