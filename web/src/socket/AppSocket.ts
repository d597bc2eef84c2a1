/**
 * The app socket (protoo at APP_SOCKET_PATH): one connection per tab while signed in. The
 * connecting, backoff and typed requests are ReconnectingPeer's; this class adds what is
 * the app socket's own: a fresh single-use ticket in the URL for every attempt (never the
 * session token, which would land in proxy logs), the session check before coming back,
 * the server's reasons for closing, and typed events fanned out to subscribers.
 *
 * The server may say why it closes (`socket-closing`). Closed as one of too many sockets
 * of this person, the socket stays closed until `reconnect()`: coming back on its own would
 * close another of their tabs, which would come back and close the next, for ever.
 */
import type {
  ClientRequestName,
  ClientRequests,
  RequestData,
  RequestReply,
  ServerEventName,
  ServerEvents,
  SocketCloseReason,
} from '@voice/protocol';
import {
  type PeerFactory,
  type PeerOpenInfo,
  type PeerStatus,
  ReconnectingPeer,
  type RetryQuestion,
  safely,
} from './ReconnectingPeer.ts';
import type { ReconnectOptions } from './reconnectPolicy.ts';
import { appSocketUrl } from './socketUrl.ts';

/** The app socket's connection status (see PeerStatus). */
export type SocketStatus = PeerStatus;
/** Passed to open listeners. */
export type SocketOpenInfo = PeerOpenInfo;

export interface AppSocketOptions {
  /**
   * A new socket ticket for the next attempt; null when signed out or the session was refused
   * (the socket then stays closed). A rejection (no network, a busy server) is a failed attempt
   * and backs off like one.
   */
  ticket: () => Promise<string | null>;
  /** The page's address: the socket lives on the same host. */
  location: Pick<Location, 'protocol' | 'host'>;
  createPeer: PeerFactory<ClientRequests>;
  /**
   * Asked after the server closed the socket and after repeated failures: resolve true to
   * keep reconnecting. Without it a server close ends the socket and failures retry forever.
   */
  checkSession?: () => Promise<boolean>;
  reconnect?: ReconnectOptions;
  connectTimeoutMs?: number;
  /** Source of jitter, in [0, 1). */
  random?: () => number;
}

type Listener = (data: unknown) => void;

export class AppSocket {
  readonly #peer: ReconnectingPeer<ClientRequests, ServerEvents>;
  readonly #checkSession: (() => Promise<boolean>) | undefined;
  /** What the server said, in `socket-closing`, about the close of the current connection. */
  #closingReason: SocketCloseReason | null = null;
  /** Why the socket is 'closed' when the server's reason keeps it so. */
  #closedBecause: SocketCloseReason | null = null;
  readonly #events = new Map<string, Set<Listener>>();

  constructor({ ticket, location, createPeer, checkSession, ...schedule }: AppSocketOptions) {
    this.#checkSession = checkSession;
    this.#peer = new ReconnectingPeer<ClientRequests, ServerEvents>({
      ...schedule,
      url: async () => {
        const current = await ticket();
        return current ? appSocketUrl(location, current) : null;
      },
      createPeer,
      shouldRetry: (question) => this.#shouldRetry(question),
    });
    // A reason belongs to the connection it was said on.
    this.#peer.onOpen(() => {
      this.#closingReason = null;
    });
    this.#peer.onNotification(({ method, data }) => {
      if (method === 'socket-closing') this.#closingReason = closeReason(data);
      for (const listener of [...(this.#events.get(method) ?? [])]) safely(() => listener(data));
    });
  }

  get status(): SocketStatus {
    return this.#peer.status;
  }

  /** While 'closed' because the server said so (too many sockets), its reason; null otherwise. */
  get closedBecause(): SocketCloseReason | null {
    return this.#peer.status === 'closed' ? this.#closedBecause : null;
  }

  /** Starts connecting; does nothing once started or closed. */
  start(): void {
    this.#peer.start();
  }

  /** Connects again after the socket was closed (the person asked for it); does nothing otherwise. */
  reconnect(): void {
    if (this.#peer.status !== 'closed') return;
    this.#closedBecause = null;
    this.#peer.reconnect();
  }

  /** Skips the wait of a scheduled retry (the browser came back online). */
  retryNow(): void {
    this.#peer.retryNow();
  }

  /** The browser reports the network gone: drop the connection now and keep retrying. */
  networkDown(): void {
    this.#peer.networkDown();
  }

  /** Disconnects for good (logout). Listeners are dropped. Idempotent. */
  close(): void {
    this.#peer.close();
    this.#events.clear();
  }

  /** Calls `handler` with each `event` the server sends. Returns an unsubscribe function. */
  on<E extends ServerEventName>(event: E, handler: (data: ServerEvents[E]) => void): () => void {
    let set = this.#events.get(event);
    if (!set) {
      set = new Set();
      this.#events.set(event, set);
    }
    const listener = handler as Listener;
    set.add(listener);
    return () => {
      this.#events.get(event)?.delete(listener);
    };
  }

  /** Calls `listener` each time a connection opens. */
  onOpen(listener: (info: SocketOpenInfo) => void): () => void {
    return this.#peer.onOpen(listener);
  }

  onStatusChange(listener: (status: SocketStatus) => void): () => void {
    return this.#peer.onStatusChange(listener);
  }

  /** Sends a request; resolves with its declared reply (see ReconnectingPeer.request). */
  request<N extends ClientRequestName>(method: N, data: RequestData<N>): Promise<RequestReply<N>> {
    return this.#peer.request(method, data);
  }

  #shouldRetry(question: RetryQuestion): boolean | Promise<boolean> {
    if (question === 'server-closed' && this.#closingReason === 'too-many-sockets') {
      this.#closedBecause = this.#closingReason;
      return false;
    }
    // Without a way to check, failures are retried and a server close is final.
    return this.#checkSession ? this.#checkSession() : question === 'failing';
  }
}

/** The reason in a `socket-closing` notification, if it is one this client knows. */
function closeReason(data: unknown): SocketCloseReason | null {
  const reason = (data as { reason?: unknown } | null)?.reason;
  return reason === 'too-many-sockets' || reason === 'session-expired' ? reason : null;
}
