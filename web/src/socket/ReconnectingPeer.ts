/**
 * A protoo connection that comes back by itself (SPEC section 9, "Socket"): the app socket
 * at /ws uses it today, a room's connection to a media server's /rtc next.
 *
 * Each attempt gets a fresh transport peer that never retries on its own; this class owns
 * the schedule (reconnectPolicy.ts) and the connect time-out (SOCKET.connectTimeoutMs).
 * A close the server initiated (protoo code 4000) is not retried blindly: `shouldRetry`
 * decides. Browsers hide why a handshake failed, so a refused token looks like a network
 * failure: `shouldRetry` is also asked after every CHECK_EVERY failed attempts in a row.
 * A server that shuts down closes with 1001 ("going away"): the first attempt after that
 * goes at once, to another node when there is one, and only later ones wait.
 *
 * The URL may take a request to get (the app socket's single-use ticket): the connect
 * time-out covers it, and a failure to get it counts as a failed attempt.
 *
 * Requests and notifications are typed by the protocol's declarations (`ClientRequests`,
 * `ServerEvents`): a map from name to request data and reply, and from name to payload.
 */
import { SOCKET } from '@voice/protocol';
import { ApiError } from '../api/client.ts';
import { DEFAULT_RECONNECT, type ReconnectOptions, reconnectDelay } from './reconnectPolicy.ts';

/** Requests by name, each with the data sent and the reply received. */
export type RequestMap<R> = { [N in keyof R]: { data: unknown; reply: unknown } };

/** A notification as it arrives: its name and its payload, typed together. */
export type Notification<E> = { [M in keyof E & string]: { method: M; data: E[M] } }[keyof E & string];

/** The part of a protoo-client Peer used here: one connection attempt. */
export interface TransportPeer<R extends RequestMap<R>> {
  readonly connected: boolean;
  on(event: 'open' | 'disconnected' | 'close', handler: () => void): void;
  on(event: 'failed', handler: (attempt: number) => void): void;
  on(event: 'notification', handler: (notification: { method: string; data?: unknown }) => void): void;
  /** protoo-client's Peer fits: its reply is `any`, typed here once by the protocol's declaration. */
  request<N extends keyof R & string>(method: N, data: R[N]['data']): Promise<R[N]['reply']>;
  close(): void;
  /** The WebSocket close code once the connection has closed, when the transport can tell. */
  readonly closeCode?: number | null;
}

/** WebSocket close code 1001: the server is going away (shutting down or restarting). */
export const GOING_AWAY = 1001;

/** Opens one connection attempt to `url`. */
export type PeerFactory<R extends RequestMap<R>> = (url: string) => TransportPeer<R>;

/**
 * - idle: not started, or closed by the app;
 * - connecting: first attempt; connected: open;
 * - reconnecting: lost or failed, another attempt is scheduled or running;
 * - closed: `shouldRetry` said not to come back (or the attempts ran out).
 */
export type PeerStatus = 'idle' | 'connecting' | 'connected' | 'reconnecting' | 'closed';

/** Passed to open listeners. */
export interface PeerOpenInfo {
  /** True when an earlier connection was lost: notifications may have been missed. */
  reconnected: boolean;
}

/** Why `shouldRetry` is asked: the server closed the connection, or attempts keep failing. */
export type RetryQuestion = 'server-closed' | 'failing';

export interface ReconnectingPeerOptions<R extends RequestMap<R>> {
  /**
   * The URL for the next attempt, or null when there is nothing to connect with; a promise
   * when it takes a request, whose rejection is a failed attempt.
   */
  url: () => string | null | Promise<string | null>;
  createPeer: PeerFactory<R>;
  /**
   * Answer true to keep reconnecting. Without it a server close is final and failures
   * retry for ever.
   */
  shouldRetry?: (question: RetryQuestion) => boolean | Promise<boolean>;
  reconnect?: ReconnectOptions;
  connectTimeoutMs?: number;
  /** Source of jitter, in [0, 1). */
  random?: () => number;
}

/** Failed attempts in a row between two `shouldRetry('failing')` questions. */
export const CHECK_EVERY = 3;

export class ReconnectingPeer<R extends RequestMap<R>, E> {
  readonly #options: ReconnectingPeerOptions<R>;
  #peer: TransportPeer<R> | null = null;
  #status: PeerStatus = 'idle';
  /** Attempts that failed since the connection was last open. */
  #failures = 0;
  #everOpen = false;
  #retryTimer: ReturnType<typeof setTimeout> | null = null;
  #connectTimer: ReturnType<typeof setTimeout> | null = null;
  /** Counts attempts; an awaited URL or a time-out of an attempt since dropped is ignored. */
  #attempt = 0;
  #closed = false;
  readonly #statusListeners = new Set<(status: PeerStatus) => void>();
  readonly #openListeners = new Set<(info: PeerOpenInfo) => void>();
  readonly #notificationListeners = new Set<(notification: Notification<E>) => void>();

  constructor(options: ReconnectingPeerOptions<R>) {
    this.#options = options;
  }

  get status(): PeerStatus {
    return this.#status;
  }

  /** Starts connecting; does nothing once started or closed. */
  start(): void {
    if (this.#closed || this.#status !== 'idle') return;
    this.#connect();
  }

  /** Connects again after the connection was 'closed' (someone asked for it); does nothing otherwise. */
  reconnect(): void {
    if (this.#closed || this.#status !== 'closed') return;
    this.#failures = 0;
    this.#connect();
  }

  /**
   * The browser came back online: skips the wait of a scheduled retry. An attempt (or a
   * `shouldRetry` question) still on its way was begun without a network and can only fail,
   * then wait its backoff: it is dropped for a fresh attempt now.
   */
  retryNow(): void {
    if (this.#closed) return;
    if (this.#retryTimer !== null) {
      clearTimeout(this.#retryTimer);
      this.#retryTimer = null;
      this.#connect();
      return;
    }
    if (this.#status !== 'connecting' && this.#status !== 'reconnecting') return;
    if (this.#peer?.connected) return;
    this.#dropPeer();
    this.#connect();
  }

  /**
   * The browser reports the network gone: drop the connection now instead of waiting
   * for it to time out, and keep retrying until retryNow() or the schedule succeeds.
   */
  networkDown(): void {
    if (this.#closed || this.#peer === null) return;
    this.#lost();
  }

  /** Disconnects for good. Listeners are dropped. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#retryTimer !== null) clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
    this.#dropPeer();
    this.#setStatus('idle');
    this.#statusListeners.clear();
    this.#openListeners.clear();
    this.#notificationListeners.clear();
  }

  /** Calls `listener` each time a connection opens. Returns an unsubscribe function. */
  onOpen(listener: (info: PeerOpenInfo) => void): () => void {
    this.#openListeners.add(listener);
    return () => this.#openListeners.delete(listener);
  }

  onStatusChange(listener: (status: PeerStatus) => void): () => void {
    this.#statusListeners.add(listener);
    return () => this.#statusListeners.delete(listener);
  }

  /** Calls `listener` with each notification of the open connection. */
  onNotification(listener: (notification: Notification<E>) => void): () => void {
    this.#notificationListeners.add(listener);
    return () => this.#notificationListeners.delete(listener);
  }

  /**
   * Sends a request and resolves with its declared reply. A refusal becomes an ApiError
   * whose code is the server's error id; no connection is a network error.
   */
  async request<N extends keyof R & string>(method: N, data: R[N]['data']): Promise<R[N]['reply']> {
    const peer = this.#peer;
    if (!peer?.connected) throw new ApiError(0, null, 'The socket is not connected');
    try {
      return await peer.request(method, data);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const code = (error as { code?: unknown }).code;
      // protoo puts the HTTP-like status in `code` and the server's error id in the reason.
      if (typeof code === 'number') throw new ApiError(code, reason, reason);
      throw new ApiError(0, null, reason);
    }
  }

  #connect(): void {
    const attempt = ++this.#attempt;
    const url = this.#options.url();
    if (typeof url === 'string' || url === null) {
      this.#open(url, attempt);
      return;
    }
    this.#setStatus(this.#everOpen || this.#failures > 0 ? 'reconnecting' : 'connecting');
    this.#startConnectTimer(attempt);
    const current = () => !this.#closed && this.#attempt === attempt;
    url.then(
      (resolved) => {
        if (current()) this.#open(resolved, attempt);
      },
      () => {
        if (current()) this.#lost();
      },
    );
  }

  #open(url: string | null, attempt: number): void {
    if (url === null) {
      this.#clearConnectTimer();
      this.#setStatus('closed');
      return;
    }
    this.#setStatus(this.#everOpen || this.#failures > 0 ? 'reconnecting' : 'connecting');
    const peer = this.#options.createPeer(url);
    this.#peer = peer;
    const mine = () => this.#peer === peer;
    if (this.#connectTimer === null) this.#startConnectTimer(attempt);

    peer.on('open', () => {
      if (!mine()) return;
      this.#clearConnectTimer();
      const reconnected = this.#everOpen;
      this.#everOpen = true;
      this.#failures = 0;
      this.#setStatus('connected');
      for (const listener of [...this.#openListeners]) safely(() => listener({ reconnected }));
    });
    peer.on('failed', () => {
      if (mine()) this.#lost();
    });
    peer.on('disconnected', () => {
      if (mine()) this.#lost(peer.closeCode === GOING_AWAY);
    });
    // Only a close we did not ask for reaches this: the server ended the connection.
    peer.on('close', () => {
      if (!mine()) return;
      this.#dropPeer();
      this.#askThenRetry('server-closed');
    });
    peer.on('notification', (notification) => {
      if (!mine()) return;
      // The protocol's declaration types what this server sends.
      const typed = notification as Notification<E>;
      for (const listener of [...this.#notificationListeners]) safely(() => listener(typed));
    });
  }

  /**
   * The connection failed or dropped: close this peer and schedule the next one. A server
   * going away from an open connection is tried again at once: the service is still up.
   */
  #lost(goingAway = false): void {
    this.#dropPeer();
    if (goingAway && this.#failures === 0) {
      this.#connect();
      return;
    }
    // This failure is number #failures + 1 in a row.
    if ((this.#failures + 1) % CHECK_EVERY === 0 && this.#options.shouldRetry) this.#askThenRetry('failing');
    else this.#scheduleRetry();
  }

  #askThenRetry(question: RetryQuestion): void {
    const answer = this.#options.shouldRetry?.(question) ?? false;
    if (typeof answer === 'boolean') {
      if (answer) this.#scheduleRetry();
      else this.#setStatus('closed');
      return;
    }
    this.#setStatus('reconnecting');
    // An answer that comes after retryNow() started another attempt is no longer wanted.
    const attempt = this.#attempt;
    const current = () => !this.#closed && this.#attempt === attempt;
    answer.then(
      (again) => {
        if (!current()) return;
        if (again) this.#scheduleRetry();
        else this.#setStatus('closed');
      },
      () => {
        if (current()) this.#scheduleRetry();
      },
    );
  }

  #scheduleRetry(): void {
    if (this.#closed) return;
    const delay = reconnectDelay(
      this.#failures,
      this.#options.random,
      this.#options.reconnect ?? DEFAULT_RECONNECT,
    );
    this.#failures += 1;
    if (delay === null) {
      this.#setStatus('closed');
      return;
    }
    this.#setStatus('reconnecting');
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = null;
      this.#connect();
    }, delay);
  }

  #startConnectTimer(attempt: number): void {
    this.#connectTimer = setTimeout(() => {
      if (this.#attempt === attempt) this.#lost();
    }, this.#options.connectTimeoutMs ?? SOCKET.connectTimeoutMs);
  }

  #dropPeer(): void {
    // Whatever the dropped attempt still awaits is no longer wanted.
    this.#attempt += 1;
    this.#clearConnectTimer();
    const peer = this.#peer;
    // Cleared first, so the peer's own 'close' event is recognised as ours and ignored.
    this.#peer = null;
    peer?.close();
  }

  #clearConnectTimer(): void {
    if (this.#connectTimer !== null) clearTimeout(this.#connectTimer);
    this.#connectTimer = null;
  }

  #setStatus(status: PeerStatus): void {
    if (this.#status === status) return;
    this.#status = status;
    for (const listener of [...this.#statusListeners]) safely(() => listener(status));
  }
}

/** One faulty listener must not keep the others from hearing. */
export function safely(run: () => void): void {
  try {
    run();
  } catch (error) {
    console.error('Socket listener failed', error);
  }
}
