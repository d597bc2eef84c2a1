/**
 * Where socket tickets wait for their one handshake: RedisTicketStore with REDIS_URL, so a
 * ticket from one API process opens a socket on any other; this memory store otherwise.
 * Taking a ticket removes it in the same step, so two handshakes with one ticket never both
 * get it.
 */

/** Whose session a ticket opens a socket for. */
export interface TicketHolder {
  userId: string;
  sessionId: string;
}

export interface TicketStore {
  /** Keeps `holder` under `ticket` for `ttlMs` from now. */
  put(ticket: string, holder: TicketHolder, ttlMs: number): Promise<void>;
  /** The holder of a live ticket, removed as it is read; null for an unknown, used or expired one. */
  take(ticket: string): Promise<TicketHolder | null>;
}

/** A single process: tickets in its own memory, each dropped once used or run out. */
export class MemoryTicketStore implements TicketStore {
  /** ticket → its holder and when it runs out (ms). Tickets share one lifetime: insertion order is expiry order. */
  readonly #tickets = new Map<string, { holder: TicketHolder; until: number }>();

  constructor(readonly now: () => number = Date.now) {}

  async put(ticket: string, holder: TicketHolder, ttlMs: number): Promise<void> {
    this.#prune();
    this.#tickets.set(ticket, { holder, until: this.now() + ttlMs });
  }

  async take(ticket: string): Promise<TicketHolder | null> {
    this.#prune();
    const entry = this.#tickets.get(ticket);
    // Read and removed with no await between: atomic within the process.
    this.#tickets.delete(ticket);
    return entry ? entry.holder : null;
  }

  #prune(): void {
    const now = this.now();
    for (const [ticket, { until }] of this.#tickets) {
      if (until > now) break;
      this.#tickets.delete(ticket);
    }
  }
}

/**
 * Redis first, this process's memory while Redis does not answer: a Redis outage must not keep
 * people off the app socket (presence and calls degrade, the socket stays). A ticket lives in
 * exactly one of the two, and each takes it atomically, so it still opens one handshake; one
 * kept in memory opens a socket only on the process that issued it, as the tab's retry finds.
 */
export class FallbackTicketStore implements TicketStore {
  constructor(
    readonly shared: TicketStore,
    readonly local: TicketStore = new MemoryTicketStore(),
    /** Whether an error means "Redis does not answer now" (RedisUnavailableError). */
    readonly unavailable: (error: unknown) => boolean,
  ) {}

  async put(ticket: string, holder: TicketHolder, ttlMs: number): Promise<void> {
    try {
      await this.shared.put(ticket, holder, ttlMs);
    } catch (error) {
      if (!this.unavailable(error)) throw error;
      await this.local.put(ticket, holder, ttlMs);
    }
  }

  async take(ticket: string): Promise<TicketHolder | null> {
    // Memory first: it answers at once, and holds only what this process issued in an outage.
    return (await this.local.take(ticket)) ?? this.shared.take(ticket);
  }
}
