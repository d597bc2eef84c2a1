/**
 * The app socket at /ws: protoo over WebSocket, one connection per browser tab.
 * The handshake is authenticated with a single-use socket ticket (query parameter `ticket`,
 * SocketTickets.ts), never the session token, which would land in proxy and access logs;
 * the browser's Origin must be the app's own. Events addressed to people, or to one
 * tab of theirs, arrive on the bus and go to their connections on this process; requests
 * go to the features' handlers (socket/handlers.ts).
 *
 * What a socket may cost is bounded per person: every frame is checked before protoo
 * parses it (@voice/signalling), a person holds at most SOCKETS_PER_USER_MAX sockets in
 * the whole service (the oldest closes), all of their sockets share one request budget,
 * and no socket outlives its session.
 */

import { randomUUID } from 'node:crypto';
import { type Bus, deliveryChannel, RedisUnavailableError, socketEvictionChannel } from '@voice/bus';
import {
  APP_SOCKET_PATH,
  type ClientRequestName,
  type Delivery,
  type ServerEventName,
  SOCKET_ERROR,
  SOCKET_MAX_MESSAGE_BYTES,
  SOCKET_REJECT,
  SOCKET_REQUEST_BUDGET,
  SOCKETS_PER_USER_MAX,
  type SocketEviction,
} from '@voice/protocol';
import {
  type AcceptConnection,
  type ConnectionRequest,
  ProtooEndpoint,
  type RejectConnection,
  TokenBucket,
  type UpgradeTarget,
} from '@voice/signalling';
import type protoo from 'protoo-server';
import { databaseUnavailable } from '../db/unavailable.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { Connection } from './Connection.ts';
import type { SocketContext, SocketHandler, SocketHandlers, SocketLifecycle } from './handlers.ts';
import { LocalSocketRegistry, type SocketRegistry } from './SocketRegistry.ts';

/** A session as the socket needs it: whose it is, its id, and when it ends. */
export interface SocketSession {
  user: { id: string };
  sessionId: string;
  expiresAt: Date | null;
}

/** Spends the ticket a tab connects with (SocketTickets fits): its live session, or null. */
export interface SocketTicketCheck {
  redeem(ticket: string): Promise<SocketSession | null>;
}

/** Told of every tab that opens and closes (the presence feature fits). */
export interface SocketPresence {
  connected(userId: string): Promise<void>;
  /** `immediate`: the session ended, so no grace period for a reload. */
  disconnected(userId: string, options?: { immediate?: boolean }): void;
}

export interface AppSocketOptions {
  tickets: SocketTicketCheck;
  presence: SocketPresence;
  bus: Bus;
  handlers: SocketHandlers;
  /** Features told when a connection closes. */
  lifecycle?: readonly SocketLifecycle[];
  logger: Logger;
  /** Origins a browser may connect from (the app's PUBLIC_URL origin). */
  allowedOrigins: readonly string[];
  /** Every process's sockets, for the service-wide cap; without it the cap is per process. */
  registry?: SocketRegistry;
  /** Sockets per person; SOCKETS_PER_USER_MAX unless a test says otherwise. */
  maxSocketsPerUser?: number;
}

/** One person's connections on this process, oldest first, and the budget they share. */
interface Person {
  connections: Set<Connection>;
  budget: TokenBucket;
  forgetTimer: NodeJS.Timeout | null;
}

// A budget is kept after a person's last socket closes until it would be full again, so
// closing and reopening a socket does not buy a fresh burst.
const BUDGET_REFILL_MS = Math.ceil(
  (SOCKET_REQUEST_BUDGET.burst / SOCKET_REQUEST_BUDGET.ratePerSecond) * 1000,
);

export class AppSocketServer {
  /** Where the upgrades of `/ws` go (server.ts routes them here). */
  readonly endpoint: UpgradeTarget;
  readonly #options: AppSocketOptions;
  readonly #endpoint: ProtooEndpoint;
  readonly #registry: SocketRegistry;
  readonly #cap: number;
  /** This process's connections, per person and by id. */
  readonly #people = new Map<string, Person>();
  readonly #connections = new Map<string, Connection>();
  readonly #unsubscribe: Promise<Array<() => Promise<void>>>;
  #closed = false;

  constructor(options: AppSocketOptions) {
    this.#options = options;
    this.#registry = options.registry ?? new LocalSocketRegistry();
    this.#cap = options.maxSocketsPerUser ?? SOCKETS_PER_USER_MAX;
    this.endpoint = this.#endpoint = new ProtooEndpoint({
      maxMessageBytes: SOCKET_MAX_MESSAGE_BYTES,
      onProblem: (message, fields) => options.logger.warn(`socket: ${message}`, fields),
      onConnectionRequest: (request, accept, reject) => this.#onConnectionRequest(request, accept, reject),
    });
    this.#unsubscribe = Promise.all([
      options.bus.subscribe(deliveryChannel, (message) => this.#deliver(message)),
      options.bus.subscribe(socketEvictionChannel, (message) => this.#evictRemote(message)),
    ]);
    this.#registry.onLost(() => this.#reregister());
  }

  /** Connections on this process. */
  get connectionCount(): number {
    return this.#connections.size;
  }

  /** Sends to one of this process's connections at once (no bus); false when it is not here. */
  deliverToConnection(userId: string, connectionId: string, event: ServerEventName, data: unknown): boolean {
    const connection = this.#connections.get(connectionId);
    if (this.#closed || !connection || connection.userId !== userId) return false;
    connection.forward(event, data);
    return true;
  }

  /** The ids of a person's connections on this process, oldest first. */
  connectionIds(userId: string): string[] {
    return [...(this.#people.get(userId)?.connections ?? [])].map((connection) => connection.id);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const person of this.#people.values()) if (person.forgetTimer) clearTimeout(person.forgetTimer);
    this.#endpoint.close();
    void this.#unsubscribe.then((offs) => Promise.all(offs.map((off) => off())));
    this.#people.clear();
    this.#connections.clear();
  }

  async #onConnectionRequest(
    { url, origin }: ConnectionRequest,
    accept: AcceptConnection,
    reject: RejectConnection,
  ): Promise<void> {
    if (url.pathname !== APP_SOCKET_PATH) {
      reject(SOCKET_REJECT.notFound.status, SOCKET_REJECT.notFound.reason);
      return;
    }
    // Browsers always send Origin; other clients (load tests) send none and are trusted like any bearer.
    if (origin !== undefined && (origin === 'null' || !this.#options.allowedOrigins.includes(origin))) {
      reject(SOCKET_REJECT.forbiddenOrigin.status, SOCKET_REJECT.forbiddenOrigin.reason);
      return;
    }
    const ticket = url.searchParams.get('ticket');
    let session: SocketSession | null;
    try {
      session = ticket ? await this.#options.tickets.redeem(ticket) : null;
    } catch (error) {
      if (!databaseUnavailable(error) && !(error instanceof RedisUnavailableError)) throw error;
      // A client that reconnects with backoff (and a new ticket) gets in once both answer again.
      reject(SOCKET_REJECT.unavailable.status, SOCKET_REJECT.unavailable.reason);
      return;
    }
    if (!session || this.#closed) {
      reject(SOCKET_REJECT.unauthorized.status, SOCKET_REJECT.unauthorized.reason);
      return;
    }
    const transport = accept();
    if (!transport) return;
    const id = randomUUID();
    const peer = this.#endpoint.createPeer(id, transport);
    await this.#attach(new Connection(id, session.user.id, session.sessionId, peer), peer, session);
  }

  async #attach(connection: Connection, peer: protoo.Peer, session: SocketSession): Promise<void> {
    const { userId } = connection;
    const ctx: SocketContext = { userId, sessionId: connection.sessionId, connectionId: connection.id };
    const person = this.#person(userId);
    person.connections.add(connection);
    this.#connections.set(connection.id, connection);
    peer.on('request', (request, accept, reject) => {
      if (!person.budget.take()) {
        reject(SOCKET_ERROR.rateLimited, 'RATE_LIMITED');
        return;
      }
      this.#handle(ctx, request.method, request.data).then(accept, (error: unknown) => {
        if (error instanceof AppError) reject(error.status, error.code);
        else if (databaseUnavailable(error)) reject(SOCKET_ERROR.unavailable, 'SERVICE_UNAVAILABLE');
        else {
          this.#options.logger.error('socket request failed', { method: request.method, error });
          reject(SOCKET_ERROR.internal, 'INTERNAL');
        }
      });
    });
    peer.on('close', () => this.#detach(connection, person));
    // Counted (synchronously) before anything below can close a socket, so presence sees
    // every close after its open and the person never looks offline for a moment.
    const joined = this.#options.presence.connected(userId);
    if (session.expiresAt) connection.expireAt(session.expiresAt);
    for (const oldest of person.connections) {
      if (person.connections.size <= this.#cap) break;
      oldest.close('too-many-sockets');
    }
    if (!connection.closed) void this.#capServiceWide(userId, connection.id);
    await joined;
  }

  #person(userId: string): Person {
    let person = this.#people.get(userId);
    if (!person) {
      const { ratePerSecond, burst } = SOCKET_REQUEST_BUDGET;
      person = { connections: new Set(), budget: new TokenBucket(ratePerSecond, burst), forgetTimer: null };
      this.#people.set(userId, person);
    }
    if (person.forgetTimer) clearTimeout(person.forgetTimer);
    person.forgetTimer = null;
    return person;
  }

  /** Records the socket in the registry and has the person's sockets beyond the cap closed, anywhere. */
  async #capServiceWide(userId: string, socketId: string): Promise<void> {
    try {
      const beyond = await this.#registry.add(userId, socketId, this.#cap);
      if (beyond.length > 0)
        await this.#options.bus.publish(socketEvictionChannel, { userId, socketIds: beyond });
    } catch (error) {
      this.#options.logger.warn('socket: service-wide cap not applied', { error });
    }
  }

  /** The registry may have lost this process's sockets (Redis came back): adds them again, oldest first. */
  #reregister(): void {
    const all = [...this.#connections.values()];
    void (async () => {
      for (const connection of all) {
        if (this.#closed) return;
        if (!connection.closed) await this.#capServiceWide(connection.userId, connection.id);
      }
    })();
  }

  #evictRemote({ userId, socketIds }: SocketEviction): void {
    for (const id of socketIds) {
      const connection = this.#connections.get(id);
      if (connection?.userId === userId) connection.close('too-many-sockets');
    }
  }

  #detach(connection: Connection, person: Person): void {
    const { userId } = connection;
    if (!person.connections.delete(connection)) return;
    this.#connections.delete(connection.id);
    connection.close();
    void this.#registry.remove(userId, connection.id).catch(() => {});
    if (person.connections.size === 0 && !this.#closed) {
      person.forgetTimer = setTimeout(() => {
        if (person.connections.size === 0 && this.#people.get(userId) === person) this.#people.delete(userId);
      }, BUDGET_REFILL_MS);
      person.forgetTimer.unref();
    }
    this.#options.presence.disconnected(userId, { immediate: connection.sessionEnded });
    const ctx: SocketContext = { userId, sessionId: connection.sessionId, connectionId: connection.id };
    for (const listener of this.#options.lifecycle ?? []) {
      try {
        listener.connectionClosed(ctx);
      } catch (error) {
        this.#options.logger.error('socket: close listener failed', { error });
      }
    }
  }

  async #handle(ctx: SocketContext, method: string, data: unknown): Promise<unknown> {
    const handlers = this.#options.handlers;
    if (!Object.hasOwn(handlers, method)) throw new AppError('NOT_FOUND');
    // One typed dispatch for every method: the handler's own schema checks the data it gets,
    // so the data handed on is that handler's own (TypeScript cannot follow `method` here).
    const handler = handlers[method as ClientRequestName] as SocketHandler<ClientRequestName>;
    const parsed = handler.schema.safeParse(data ?? {});
    if (!parsed.success) throw new AppError('VALIDATION', parsed.error.issues[0]?.path.join('.'));
    return handler.handle(ctx, parsed.data);
  }

  /** Hands a bus delivery to the recipients' connections on this process. */
  #deliver(message: Delivery): void {
    for (const connection of this.#recipients(message)) {
      if (message.event === '_session-revoked') {
        const sessionId = (message.data as { sessionId?: unknown } | null)?.sessionId;
        if (sessionId === null || sessionId === connection.sessionId) connection.endSession();
        continue;
      }
      connection.forward(message.event, message.data);
    }
  }

  /** The connections here that `message` is for: the named tabs of its people, or all their tabs. */
  #recipients({ to, connections, except }: Delivery): Connection[] {
    if (connections) {
      const people = new Set(to);
      return connections.flatMap((id) => {
        const connection = this.#connections.get(id);
        return connection && people.has(connection.userId) ? [connection] : [];
      });
    }
    const all = to.flatMap((userId) => [...(this.#people.get(userId)?.connections ?? [])]);
    return except ? all.filter((connection) => !except.includes(connection.id)) : all;
  }
}
