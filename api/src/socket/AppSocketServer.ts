/**
 * The app socket at /ws: protoo over WebSocket, one connection per browser tab.
 * The handshake is authenticated with the session token (query parameter `token`)
 * and the browser's Origin must be the app's own. Events addressed to a user
 * arrive on the bus and go to every tab of theirs connected to this process.
 */

import { randomUUID } from 'node:crypto';
import type { Server as HttpServer, IncomingMessage } from 'node:http';
import { APP_SOCKET_PATH, type ClientRequestName, SOCKET_ERROR, SOCKET_REJECT } from '@voice/protocol';
import protoo from 'protoo-server';
import type { Sessions } from '../auth/Sessions.ts';
import type { Bus } from '../bus/Bus.ts';
import { DELIVERY_CHANNEL, type Delivery } from '../bus/Notifier.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { Presence } from '../presence/Presence.ts';
import type { Handlers, SocketContext } from './handlers.ts';
import { TokenBucket } from './TokenBucket.ts';

export interface AppSocketOptions {
  sessions: Sessions;
  presence: Presence;
  bus: Bus;
  handlers: Handlers;
  logger: Logger;
  /** Origins a browser may connect from (the app's PUBLIC_URL origin). */
  allowedOrigins: readonly string[];
}

interface LocalPeer {
  peer: protoo.Peer;
  ctx: SocketContext;
}

const MAX_MESSAGE_BYTES = 64 * 1024;

export class AppSocketServer {
  readonly #options: AppSocketOptions;
  readonly #wsServer: protoo.WebSocketServer;
  readonly #room = new protoo.Room();
  /** This process's peers, per user. */
  #peers = new Map<string, Set<LocalPeer>>();
  #unsubscribe: Promise<() => Promise<void>>;
  #closed = false;

  constructor(httpServer: HttpServer, options: AppSocketOptions) {
    this.#options = options;
    this.#wsServer = new protoo.WebSocketServer(httpServer, {
      maxReceivedFrameSize: MAX_MESSAGE_BYTES,
      maxReceivedMessageSize: MAX_MESSAGE_BYTES,
    });
    this.#unsubscribe = options.bus.subscribe(DELIVERY_CHANNEL, (message) =>
      this.#deliver(message as Delivery),
    );
    this.#wsServer.on('connectionrequest', (info, accept, reject) => {
      this.#onConnectionRequest(info.request, info.origin, accept, reject).catch((error: unknown) => {
        options.logger.error('socket handshake failed', { error });
        reject(500, 'Server error');
      });
    });
  }

  /** Connections on this process. */
  get connectionCount(): number {
    let n = 0;
    for (const set of this.#peers.values()) n += set.size;
    return n;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#wsServer.stop();
    this.#room.close();
    void this.#unsubscribe.then((off) => off());
    this.#peers.clear();
  }

  async #onConnectionRequest(
    request: IncomingMessage,
    origin: string | undefined,
    accept: protoo.ConnectionRequestAcceptFn,
    reject: protoo.ConnectionRequestRejectFn,
  ): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== APP_SOCKET_PATH) {
      reject(SOCKET_REJECT.notFound.status, SOCKET_REJECT.notFound.reason);
      return;
    }
    // Browsers always send Origin; other clients (load tests) send none and are trusted like any bearer.
    if (origin && origin !== 'null' && !this.#options.allowedOrigins.includes(origin)) {
      reject(SOCKET_REJECT.forbiddenOrigin.status, SOCKET_REJECT.forbiddenOrigin.reason);
      return;
    }
    if (origin === 'null') {
      reject(SOCKET_REJECT.forbiddenOrigin.status, SOCKET_REJECT.forbiddenOrigin.reason);
      return;
    }
    const token = url.searchParams.get('token');
    const session = token ? await this.#options.sessions.authenticate(token) : null;
    if (!session || this.#closed) {
      reject(SOCKET_REJECT.unauthorized.status, SOCKET_REJECT.unauthorized.reason);
      return;
    }
    const ctx: SocketContext = { userId: session.user.id, sessionId: session.sessionId };
    const peer = this.#room.createPeer(`${ctx.userId}:${randomUUID()}`, accept());
    await this.#attach({ peer, ctx });
  }

  async #attach(local: LocalPeer): Promise<void> {
    const { peer, ctx } = local;
    const bucket = new TokenBucket(10, 20);
    let set = this.#peers.get(ctx.userId);
    if (!set) {
      set = new Set();
      this.#peers.set(ctx.userId, set);
    }
    set.add(local);
    peer.on('request', (request, accept, reject) => {
      if (!bucket.take()) {
        reject(SOCKET_ERROR.rateLimited, 'Too many requests');
        return;
      }
      this.#handle(ctx, request.method, request.data).then(accept, (error: unknown) => {
        if (error instanceof AppError) reject(error.status, error.code);
        else {
          this.#options.logger.error('socket request failed', { method: request.method, error });
          reject(SOCKET_ERROR.internal, 'INTERNAL');
        }
      });
    });
    peer.on('close', () => this.#detach(local));
    await this.#options.presence.connected(ctx.userId);
  }

  #detach(local: LocalPeer): void {
    const { userId } = local.ctx;
    const set = this.#peers.get(userId);
    if (!set?.delete(local)) return;
    if (set.size === 0) this.#peers.delete(userId);
    this.#options.presence.disconnected(userId);
  }

  async #handle(ctx: SocketContext, method: string, data: unknown): Promise<unknown> {
    const handler = Object.hasOwn(this.#options.handlers, method)
      ? this.#options.handlers[method as ClientRequestName]
      : undefined;
    if (!handler) throw new AppError('NOT_FOUND');
    const parsed = handler.schema.safeParse(data ?? {});
    if (!parsed.success) throw new AppError('VALIDATION', parsed.error.issues[0]?.path.join('.'));
    return handler.handle(ctx, parsed.data);
  }

  /** Hands a bus delivery to the recipients' tabs connected here. */
  #deliver(message: Delivery): void {
    for (const userId of message.to) {
      const peers = this.#peers.get(userId);
      if (!peers) continue;
      if (message.event === '_session-revoked') {
        const { sessionId } = message.data as { sessionId: string | null };
        for (const { peer, ctx } of [...peers])
          if (sessionId === null || ctx.sessionId === sessionId) peer.close();
        continue;
      }
      for (const { peer } of peers) {
        peer.notify(message.event, message.data).catch(() => {
          // The tab went away while sending; its close handler cleans up.
        });
      }
    }
  }
}
