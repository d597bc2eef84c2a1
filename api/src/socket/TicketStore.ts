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
