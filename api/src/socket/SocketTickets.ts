/**
 * Socket tickets: what a tab puts in the app socket's URL instead of its session token, which
 * would otherwise land in proxy and access logs. A ticket is SOCKET_TICKET.bytes random bytes,
 * handed out to a live session (SOCKET_ROUTES.ticket), good for one handshake on any API
 * process within SOCKET_TICKET.ttlSeconds. The handshake takes it from the store (gone for
 * good) and asks the database whether its session still lives: a logout in between closes
 * the door too.
 */
import { randomBytes } from 'node:crypto';
import { RedisUnavailableError } from '@voice/bus';
import { SOCKET_TICKET, type SocketTicketResponse } from '@voice/protocol';
import { AppError } from '../errors.ts';
import type { SocketSession } from './AppSocketServer.ts';
import type { TicketHolder, TicketStore } from './TicketStore.ts';

/** The session behind a holder, if it still lives (auth/Sessions.ts fits). */
export interface LiveSessions {
  liveSession(sessionId: string, userId: string): Promise<{ expiresAt: Date } | null>;
}

// base64url of SOCKET_TICKET.bytes, unpadded: anything else is no ticket and costs no lookup.
const TICKET_PATTERN = new RegExp(`^[A-Za-z0-9_-]{${Math.ceil((SOCKET_TICKET.bytes * 4) / 3)}}$`);

export class SocketTickets {
  readonly #store: TicketStore;
  readonly #sessions: LiveSessions;
  readonly #ttlMs: number;

  constructor(store: TicketStore, sessions: LiveSessions, ttlMs = SOCKET_TICKET.ttlSeconds * 1000) {
    this.#store = store;
    this.#sessions = sessions;
    this.#ttlMs = ttlMs;
  }

  /** A new ticket for `holder`'s session (kept in memory while Redis does not answer: see FallbackTicketStore). */
  async issue(holder: TicketHolder): Promise<SocketTicketResponse> {
    const ticket = randomBytes(SOCKET_TICKET.bytes).toString('base64url');
    const expiresAt = Date.now() + this.#ttlMs;
    try {
      await this.#store.put(ticket, holder, this.#ttlMs);
    } catch (error) {
      if (error instanceof RedisUnavailableError) throw new AppError('SERVICE_UNAVAILABLE');
      throw error;
    }
    return { ticket, expiresAt };
  }

  /**
   * Spends `ticket`: the session it was issued to when the ticket is live and unused and the
   * session still is; null otherwise. Throws when Redis or the database does not answer.
   */
  async redeem(ticket: string): Promise<SocketSession | null> {
    if (!TICKET_PATTERN.test(ticket)) return null;
    const holder = await this.#store.take(ticket);
    if (!holder) return null;
    const session = await this.#sessions.liveSession(holder.sessionId, holder.userId);
    if (!session) return null;
    return { user: { id: holder.userId }, sessionId: holder.sessionId, expiresAt: session.expiresAt };
  }
}
