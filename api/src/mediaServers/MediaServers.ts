/**
 * The media servers this API knows of, from their announcements on the bus. Rooms are
 * placed on the least-loaded one; one not heard from for MEDIA_ANNOUNCE.ttlMs, that said
 * goodbye, or that a probe found dead (see confirm) is out of placement. One that is draining
 * stays known (its members are still connected to it, under the pages' CSP) but takes no room
 * and no member.
 */
import { type Bus, mediaAnnounceChannel } from '@voice/bus';
import { MEDIA_ANNOUNCE, MEDIA_PROBE, type MediaServerAnnouncement } from '@voice/protocol';
import type { Logger } from '../logger.ts';
import { probeMediaServer } from './probeMediaServer.ts';

/** A media server as the API sees it. */
export interface KnownMediaServer extends MediaServerAnnouncement {
  /** Date.now() of its latest announcement. */
  seenAt: number;
}

const SETTLE_MS = MEDIA_ANNOUNCE.intervalMs * 1.25;

export class MediaServers {
  readonly #servers = new Map<string, KnownMediaServer>();
  readonly #logger: Logger;
  readonly #ttlMs: number;
  /** The web origins of the live servers' `/rtc`, sorted; a new array only when the set changes. */
  #origins: readonly string[] = [];
  /** Probes under way, one per server however many browsers report it. */
  readonly #probes = new Map<string, Promise<boolean>>();
  /** Servers a probe found alive, until when that answer stands. */
  readonly #trustedUntil = new Map<string, number>();
  #unsubscribe: (() => Promise<void>) | null = null;
  #closed = false;
  /** When this process began to listen, and whether any server has announced itself since. */
  readonly #listeningSince = Date.now();
  #heardAny = false;

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

  /**
   * Whether this process has listened long enough to know the media servers: one has announced
   * itself, or a whole announce interval (with a quarter more for a late one) passed without any.
   * Before, a join would be told "Voice rooms are unavailable" while servers are up: a new API
   * replica is not ready until then (readiness).
   */
  get settled(): boolean {
    return this.#heardAny || Date.now() - this.#listeningSince >= SETTLE_MS;
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

  /**
   * The live media server with the least load per worker, or null when none is up. Load is what
   * costs a worker: the consumers it forwards and the members it holds (their transports), and
   * a little per router; a server that announces only routers (older ones) is weighed by those.
   */
  leastLoaded({
    notFull = false,
    except,
  }: {
    notFull?: boolean;
    except?: string;
  } = {}): KnownMediaServer | null {
    let best: KnownMediaServer | null = null;
    // What each worker carries, weighing more the more of its core it uses (as the media server
    // places routers among its own workers).
    const score = ({ load }: KnownMediaServer) => {
      const workers = Math.max(1, load.workers);
      const cpu = (load.cpu ?? 0) / workers;
      return (((load.consumers ?? 0) + (load.members ?? 0) + load.routers) / workers) * (1 + 2 * cpu) + cpu;
    };
    for (const server of this.list()) {
      if (server.load.workers === 0 || server.draining) continue;
      if ((notFull && server.load.full) || server.id === except) continue;
      if (!best || score(server) < score(best)) best = server;
    }
    return best;
  }

  /**
   * The origins (`ws://host:port`, `wss://host`) browsers open the live servers' `/rtc` at,
   * sorted. The same array until the set changes, so a caller can keep what it built from it.
   */
  origins(): readonly string[] {
    this.#expire();
    return this.#origins;
  }

  /**
   * Whether media server `id` is still in placement after asking it, because a browser said it
   * could not reach it. A browser's word alone moves nothing: the server is dropped only when
   * nothing listens at its address any more or another server answers there, or when it does
   * not answer within MEDIA_PROBE.timeoutMs and has not announced itself for
   * MEDIA_PROBE.silentMs either. Reports of one server share one probe; one found alive is
   * trusted for MEDIA_PROBE.trustMs without asking again.
   */
  async confirm(id: string): Promise<boolean> {
    const server = this.get(id);
    if (!server) return false;
    if ((this.#trustedUntil.get(id) ?? 0) > Date.now()) return true;
    let probe = this.#probes.get(id);
    if (!probe) {
      probe = this.#probe(server).finally(() => this.#probes.delete(id));
      this.#probes.set(id, probe);
    }
    return probe;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#servers.clear();
    this.#trustedUntil.clear();
    this.#refreshOrigins();
    await this.#unsubscribe?.();
  }

  async #probe({ id, url }: KnownMediaServer): Promise<boolean> {
    const result = await probeMediaServer(id, url, MEDIA_PROBE.timeoutMs);
    const server = this.#servers.get(id);
    // It said goodbye or expired while we asked.
    if (!server) return false;
    const silent = Date.now() - server.seenAt > MEDIA_PROBE.silentMs;
    if (result === 'refused' || (result === 'unanswered' && silent)) {
      this.#drop(id, 'warn', 'media server reported unreachable, and the probe agrees; out of placement', {
        result,
      });
      return false;
    }
    if (result === 'alive') this.#trustedUntil.set(id, Date.now() + MEDIA_PROBE.trustMs);
    else this.#logger.info('media server reported unreachable; kept', { id, result, silent });
    return true;
  }

  #onAnnouncement({ gone, ...announcement }: MediaServerAnnouncement): void {
    if (gone) {
      if (this.#servers.has(announcement.id)) this.#drop(announcement.id, 'info', 'media server left');
      return;
    }
    this.#heardAny = true;
    const known = this.#servers.get(announcement.id);
    if (!known) {
      this.#logger.info('media server joined', { id: announcement.id, url: announcement.url });
    }
    this.#servers.set(announcement.id, { ...announcement, seenAt: Date.now() });
    if (known?.url !== announcement.url) this.#refreshOrigins();
  }

  #expire(): void {
    const cutoff = Date.now() - this.#ttlMs;
    for (const [id, server] of this.#servers) {
      if (server.seenAt >= cutoff) continue;
      this.#drop(id, 'warn', 'media server stopped announcing; out of placement');
    }
  }

  #drop(id: string, level: 'info' | 'warn', message: string, details: Record<string, unknown> = {}): void {
    this.#servers.delete(id);
    this.#trustedUntil.delete(id);
    this.#logger[level](message, { id, ...details });
    this.#refreshOrigins();
  }

  #refreshOrigins(): void {
    const origins = [...new Set([...this.#servers.values()].map(({ url }) => new URL(url).origin))].sort();
    if (origins.join(' ') !== this.#origins.join(' ')) this.#origins = origins;
  }
}
