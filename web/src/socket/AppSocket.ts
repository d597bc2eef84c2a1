/**
 * The app socket (protoo at APP_SOCKET_PATH): one connection per tab while signed in,
 * typed server events, typed requests, and reconnection per SPEC section 9.
 *
 * Each attempt gets a fresh peer that never retries on its own; this class owns the
 * schedule (reconnectPolicy.ts) and the 20 s connect time-out. A close the server
 * initiated (protoo code 4000: session revoked, server shutting down) is not retried
 * blindly: `checkSession` decides, normally by re-validating the session. Browsers hide
 * why a handshake failed, so a refused token looks like a network failure: the session
 * is also checked after every SESSION_CHECK_EVERY failed attempts in a row.
 */
import {
  type ClientRequestName,
  type ClientRequests,
  type OkResponse,
  type ServerEventName,
  type ServerEvents,
  SOCKET,
} from '@voice/protocol';
import { ApiError } from '../api/client.ts';
import { DEFAULT_RECONNECT, type ReconnectOptions, reconnectDelay } from './reconnectPolicy.ts';

/** The part of a protoo-client Peer the app socket uses. */
export interface SocketPeer {
  readonly connected: boolean;
  on(event: 'open' | 'disconnected' | 'close', handler: () => void): void;
  on(event: 'failed', handler: (attempt: number) => void): void;
  on(event: 'notification', handler: (notification: { method: string; data?: unknown }) => void): void;
  request(method: string, data?: unknown): Promise<unknown>;
  close(): void;
}

/** Opens one connection attempt to `url`. */
export type PeerFactory = (url: string) => SocketPeer;

/**
 * - idle: not started, or closed by the app;
 * - connecting: first attempt; connected: open;
 * - reconnecting: lost or failed, another attempt is scheduled or running;
 * - closed: `checkSession` said not to come back (or the attempts ran out).
 */
export type SocketStatus = 'idle' | 'connecting' | 'connected' | 'reconnecting' | 'closed';

/** Passed to open listeners. */
export interface SocketOpenInfo {
  /** True when an earlier connection of this socket was lost: events may have been missed. */
  reconnected: boolean;
}

export interface AppSocketOptions {
  /** The URL for the next attempt, or null when there is no session to connect with. */
  url: () => string | null;
  createPeer: PeerFactory;
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

/** Failed attempts in a row between two session checks. */
const SESSION_CHECK_EVERY = 3;

export class AppSocket {
  readonly #options: AppSocketOptions;
  #peer: SocketPeer | null = null;
  #status: SocketStatus = 'idle';
  /** Attempts that failed since the socket was last open. */
  #failures = 0;
  #everOpen = false;
  #retryTimer: ReturnType<typeof setTimeout> | null = null;
  #connectTimer: ReturnType<typeof setTimeout> | null = null;
  #closed = false;
  readonly #events = new Map<string, Set<Listener>>();
  readonly #statusListeners = new Set<(status: SocketStatus) => void>();
  readonly #openListeners = new Set<(info: SocketOpenInfo) => void>();

  constructor(options: AppSocketOptions) {
    this.#options = options;
  }

  get status(): SocketStatus {
    return this.#status;
  }

  /** Starts connecting; does nothing once started or closed. */
  start(): void {
    if (this.#closed || this.#status !== 'idle') return;
    this.#connect();
  }

  /** Skips the wait of a scheduled retry (the browser came back online). */
  retryNow(): void {
    if (this.#closed || this.#retryTimer === null) return;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
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

  /** Disconnects for good (logout). Listeners are dropped. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#retryTimer !== null) clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
    this.#dropPeer();
    this.#setStatus('idle');
    this.#events.clear();
    this.#statusListeners.clear();
    this.#openListeners.clear();
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
    this.#openListeners.add(listener);
    return () => this.#openListeners.delete(listener);
  }

  onStatusChange(listener: (status: SocketStatus) => void): () => void {
    this.#statusListeners.add(listener);
    return () => this.#statusListeners.delete(listener);
  }

  /**
   * Sends a request; resolves with the server's `{ok: true}`. A refusal becomes an
   * ApiError whose code is the server's error id; no connection is a network error.
   */
  async request<N extends ClientRequestName>(method: N, data: ClientRequests[N]): Promise<OkResponse> {
    const peer = this.#peer;
    if (!peer?.connected) throw new ApiError(0, null, 'The app socket is not connected');
    try {
      return (await peer.request(method, data)) as OkResponse;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const code = (error as { code?: unknown }).code;
      // protoo puts the HTTP-like status in `code` and the server's error id in the reason.
      if (typeof code === 'number') throw new ApiError(code, reason, reason);
      throw new ApiError(0, null, reason);
    }
  }

  #connect(): void {
    const url = this.#options.url();
    if (url === null) {
      this.#setStatus('closed');
      return;
    }
    this.#setStatus(this.#everOpen || this.#failures > 0 ? 'reconnecting' : 'connecting');
    const peer = this.#options.createPeer(url);
    this.#peer = peer;
    const mine = () => this.#peer === peer;

    this.#connectTimer = setTimeout(() => {
      if (mine()) this.#lost();
    }, this.#options.connectTimeoutMs ?? SOCKET.connectTimeoutMs);

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
      if (mine()) this.#lost();
    });
    // Only a close we did not ask for reaches this: the server ended the connection.
    peer.on('close', () => {
      if (mine()) this.#serverClosed();
    });
    peer.on('notification', ({ method, data }) => {
      if (!mine()) return;
      for (const listener of [...(this.#events.get(method) ?? [])]) safely(() => listener(data));
    });
  }

  /** The connection failed or dropped: close this peer and schedule the next one. */
  #lost(): void {
    this.#dropPeer();
    // This failure is number #failures + 1 in a row.
    const due = (this.#failures + 1) % SESSION_CHECK_EVERY === 0;
    if (due && this.#options.checkSession) this.#checkThenRetry(this.#options.checkSession);
    else this.#scheduleRetry();
  }

  #serverClosed(): void {
    this.#dropPeer();
    this.#checkThenRetry(this.#options.checkSession ?? (() => Promise.resolve(false)));
  }

  #checkThenRetry(check: () => Promise<boolean>): void {
    this.#setStatus('reconnecting');
    check().then(
      (again) => {
        if (this.#closed) return;
        if (again) this.#scheduleRetry();
        else this.#setStatus('closed');
      },
      () => {
        if (!this.#closed) this.#scheduleRetry();
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

  #dropPeer(): void {
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

  #setStatus(status: SocketStatus): void {
    if (this.#status === status) return;
    this.#status = status;
    for (const listener of [...this.#statusListeners]) safely(() => listener(status));
  }
}

/** One faulty listener must not keep the others from hearing an event. */
function safely(run: () => void): void {
  try {
    run();
  } catch (error) {
    console.error('App socket listener failed', error);
  }
}
