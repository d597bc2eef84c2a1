/** A room member as a protoo-client peer, the way a browser speaks to `/rtc`, for tests. */
import { request as httpRequest } from 'node:http';
import type { RtcNotifications, RtcPeerInfo, RtcRequests, RtcServerRequests } from '@voice/protocol';
import protooClient from 'protoo-client';

interface Notification {
  method: string;
  data: unknown;
  /** Not a message of its own: it came inside a `newConsumer` request. */
  carried?: true;
}

/** How the server refused a request. */
export interface Refusal {
  code: number;
  reason: string;
}

const WAIT_MS = 5000;

export class TestMember {
  readonly peer: protooClient.Peer;
  readonly notifications: Notification[] = [];
  /** The `newConsumer` requests received (all accepted). */
  readonly consumers: RtcServerRequests['newConsumer'][] = [];
  /** `newConsumer` requests not answered yet, while `holdConsumers` (a slow browser). */
  readonly #held: Array<{ accept: () => void; reject: (code: number, reason: string) => void }> = [];
  /** Set: `newConsumer` requests wait for `answerConsumers()` instead of being accepted at once. */
  holdConsumers = false;
  #closed = false;
  readonly #waiters = new Set<() => void>();

  /** Connects to `url`; rejects when the server refuses the connection. */
  static async connect(url: string): Promise<TestMember> {
    const transport = new protooClient.WebSocketTransport(url, { retry: { retries: 0 } });
    const member = new TestMember(new protooClient.Peer(transport));
    await new Promise<void>((resolve, reject) => {
      member.peer.on('open', () => resolve());
      member.peer.on('failed', () => reject(new Error(`could not connect to ${url}`)));
      member.peer.on('close', () => reject(new Error(`closed while connecting to ${url}`)));
    });
    return member;
  }

  private constructor(peer: protooClient.Peer) {
    this.peer = peer;
    peer.on('notification', ({ method, data }) => {
      this.notifications.push({ method, data });
      this.#wake();
    });
    peer.on('request', (request, accept, reject) => {
      if (request.method === 'newConsumer') {
        const data = request.data as RtcServerRequests['newConsumer'];
        this.consumers.push(data);
        // What it carries counts as the notifications it stands for, marked as carried.
        for (const consumerId of data.closed ?? [])
          this.notifications.push({ method: 'consumerClosed', data: { consumerId }, carried: true });
        if (data.levels)
          this.notifications.push({ method: 'audioLevels', data: { levels: data.levels }, carried: true });
      }
      if (request.method === 'newConsumer' && this.holdConsumers) this.#held.push({ accept, reject });
      else accept();
      this.#wake();
    });
    peer.on('close', () => {
      this.#closed = true;
      this.#wake();
    });
  }

  /** Answers the `newConsumer` requests held so far, in the order they came. */
  answerConsumers(answer: 'accept' | 'refuse' = 'accept'): void {
    for (const { accept, reject } of this.#held.splice(0)) {
      if (answer === 'accept') accept();
      else reject(500, 'refused by the test');
    }
  }

  get closed(): boolean {
    return this.#closed;
  }

  request<M extends keyof RtcRequests>(
    method: M,
    data: RtcRequests[M]['data'],
  ): Promise<RtcRequests[M]['reply']> {
    return this.peer.request(method, data);
  }

  /** Sends a request that must be refused, and how it was; throws if it was accepted. */
  async refusal(method: string, data?: unknown): Promise<Refusal> {
    try {
      await this.peer.request(method, data);
    } catch (error) {
      const { code, message } = error as Error & { code: number };
      return { code, reason: message };
    }
    throw new Error(`${method} was accepted`);
  }

  /** The notifications `method` received so far. */
  received<M extends keyof RtcNotifications>(method: M): RtcNotifications[M][] {
    return this.notifications.filter((n) => n.method === method).map((n) => n.data as RtcNotifications[M]);
  }

  /** Resolves once `check` holds (re-checked on every message), rejects after a while. */
  async until(check: () => boolean, what: string): Promise<void> {
    if (check()) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(new Error(`timed out waiting for ${what}`));
      }, WAIT_MS);
      const waiter = () => {
        if (!check()) return;
        clearTimeout(timer);
        this.#waiters.delete(waiter);
        resolve();
      };
      this.#waiters.add(waiter);
    });
  }

  /** Waits for a notification `method` matching `match`, and returns it. */
  async notification<M extends keyof RtcNotifications>(
    method: M,
    match: (data: RtcNotifications[M]) => boolean = () => true,
  ): Promise<RtcNotifications[M]> {
    await this.until(() => this.received(method).some(match), `notification ${method}`);
    return this.received(method).find(match) as RtcNotifications[M];
  }

  /** Every `peersChanged` entry of `peerId` so far: their info as they came or changed. */
  peerInfos(peerId: string): RtcPeerInfo[] {
    return this.received('peersChanged').flatMap(({ peers }) => peers.filter((peer) => peer.id === peerId));
  }

  /** Waits for a `peersChanged` saying `peerId` came or changed (and matching `match`): their info. */
  async peerCame(peerId: string, match: (info: RtcPeerInfo) => boolean = () => true): Promise<RtcPeerInfo> {
    await this.until(() => this.peerInfos(peerId).some(match), `${peerId} to come`);
    return this.peerInfos(peerId).find(match) as RtcPeerInfo;
  }

  /** Whether a `peersChanged` said `peerId` left. */
  sawLeave(peerId: string): boolean {
    return this.received('peersChanged').some(({ left }) => left.includes(peerId));
  }

  /** Waits for a `peersChanged` saying `peerId` left. */
  async peerLeft(peerId: string): Promise<void> {
    await this.until(() => this.sawLeave(peerId), `${peerId} to leave`);
  }

  async untilClosed(): Promise<void> {
    await this.until(() => this.#closed, 'the connection to close');
  }

  close(): void {
    this.peer.close();
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
}

/** The HTTP status a WebSocket handshake to `url` gets (101 when it is accepted). */
export function handshakeStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url.replace(/^ws/, 'http'), {
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': Buffer.from('a test handshake').toString('base64'),
        'Sec-WebSocket-Protocol': 'protoo',
      },
    });
    request.on('upgrade', (_response, socket) => {
      socket.destroy();
      resolve(101);
    });
    request.on('response', (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
    request.end();
  });
}
