/** A protoo-client app-socket connection from Node, for tests and load tests. */
import protooClient from 'protoo-client';
import { ticketedSocketUrl } from './socketTicket.ts';

export interface Received {
  method: string;
  data: Record<string, unknown>;
  at: number;
}

export class SocketClient {
  readonly received: Received[] = [];
  #waiters = new Set<() => void>();

  private constructor(readonly peer: protooClient.Peer) {
    peer.on('notification', (n) => {
      this.received.push({
        method: n.method,
        data: n.data as Record<string, unknown>,
        at: performance.now(),
      });
      for (const wake of this.#waiters) wake();
    });
  }

  /** Connects to `${baseUrl}/ws` with a new ticket for `token`'s session; rejects when that fails. */
  static async connect(
    baseUrl: string,
    token: string,
    { origin }: { origin?: string } = {},
  ): Promise<SocketClient> {
    const url = await ticketedSocketUrl(baseUrl, token);
    const transport = new protooClient.WebSocketTransport(url, {
      origin,
      retry: { retries: 0 },
    } as ConstructorParameters<typeof protooClient.WebSocketTransport>[1]);
    const peer = new protooClient.Peer(transport);
    return new Promise((resolve, reject) => {
      peer.on('open', () => resolve(new SocketClient(peer)));
      peer.on('failed', () => {
        peer.close();
        reject(new Error('socket handshake failed'));
      });
    });
  }

  /** Resolves with the first notification `method` (after index `since`) that `match` accepts. */
  async waitFor(
    method: string,
    match: (data: Record<string, unknown>) => boolean = () => true,
    { since = 0, timeoutMs = 5000 } = {},
  ): Promise<Received> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.slice(since).find((r) => r.method === method && match(r.data));
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) {
        const seen = this.received.map((r) => r.method).join(', ');
        throw new Error(`no ${method} within ${timeoutMs} ms (received: ${seen || 'nothing'})`);
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.#waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.#waiters.add(wake);
      });
    }
  }

  /** True when no `method` notification arrives within `ms`. */
  async stillNo(
    method: string,
    match: (data: Record<string, unknown>) => boolean,
    ms: number,
  ): Promise<boolean> {
    try {
      await this.waitFor(method, match, { timeoutMs: ms });
      return false;
    } catch {
      return true;
    }
  }

  request(method: string, data?: unknown): Promise<unknown> {
    return this.peer.request(method, data);
  }

  get closed(): boolean {
    return this.peer.closed;
  }

  /** Resolves when the server closes the connection. */
  waitClosed(timeoutMs = 5000): Promise<void> {
    if (this.peer.closed) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('socket still open')), timeoutMs);
      this.peer.on('close', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  close(): void {
    this.peer.close();
  }
}
