import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/client.ts';
import { AppSocket, type AppSocketOptions, type SocketPeer } from './AppSocket.ts';

/** A stand-in for a protoo-client Peer that the test drives by hand. */
class FakePeer extends EventEmitter implements SocketPeer {
  connected = false;
  closed = false;
  readonly request = vi.fn<(method: string, data?: unknown) => Promise<unknown>>();

  constructor(readonly url: string) {
    super();
  }

  override on(event: string, handler: (...args: never[]) => void): this {
    return super.on(event, handler as (...args: unknown[]) => void);
  }

  open(): void {
    this.connected = true;
    this.emit('open');
  }

  /** The connection dropped after it was open. */
  drop(): void {
    this.connected = false;
    this.emit('disconnected');
  }

  /** The attempt failed before it opened. */
  fail(): void {
    this.emit('failed', 1);
  }

  /** The server closed the connection (protoo code 4000). */
  serverClose(): void {
    this.connected = false;
    this.emit('close');
  }

  notify(method: string, data: unknown): void {
    this.emit('notification', { notification: true, method, data });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.connected = false;
    this.emit('close');
  }
}

describe('AppSocket', () => {
  let peers: FakePeer[];
  let token: string | null;

  const lastPeer = () => peers.at(-1) as FakePeer;

  function createSocket(options: Partial<AppSocketOptions> = {}): AppSocket {
    return new AppSocket({
      url: () => (token ? `ws://app.test/ws?token=${token}` : null),
      createPeer: (url) => {
        const peer = new FakePeer(url);
        peers.push(peer);
        return peer;
      },
      // No jitter: delays are exactly 1 s, 2 s, 4 s, 5 s, ...
      random: () => 0.5,
      ...options,
    });
  }

  beforeEach(() => {
    vi.useFakeTimers();
    peers = [];
    token = 'abc';
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('connects with the current token and reports its status', () => {
    const socket = createSocket();
    const statuses: string[] = [];
    socket.onStatusChange((status) => statuses.push(status));
    const opened = vi.fn();
    socket.onOpen(opened);

    socket.start();
    expect(lastPeer().url).toBe('ws://app.test/ws?token=abc');
    lastPeer().open();

    expect(statuses).toEqual(['connecting', 'connected']);
    expect(opened).toHaveBeenCalledWith({ reconnected: false });
    socket.close();
    expect(socket.status).toBe('idle');
    expect(lastPeer().closed).toBe(true);
  });

  it('delivers typed events to their subscribers only', () => {
    const socket = createSocket();
    socket.start();
    lastPeer().open();
    const online = vi.fn();
    const offline = vi.fn();
    const unsubscribe = socket.on('friend-online', online);
    socket.on('friend-offline', offline);

    lastPeer().notify('friend-online', { userId: 'u1' });
    unsubscribe();
    lastPeer().notify('friend-online', { userId: 'u2' });
    lastPeer().notify('unknown-event', {});

    expect(online).toHaveBeenCalledTimes(1);
    expect(online).toHaveBeenCalledWith({ userId: 'u1' });
    expect(offline).not.toHaveBeenCalled();
    socket.close();
  });

  it('keeps delivering when one listener throws', () => {
    const socket = createSocket();
    socket.start();
    lastPeer().open();
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const second = vi.fn();
    socket.on('friend-removed', () => {
      throw new Error('boom');
    });
    socket.on('friend-removed', second);
    lastPeer().notify('friend-removed', { userId: 'u1' });
    expect(second).toHaveBeenCalledOnce();
    expect(error).toHaveBeenCalledOnce();
    error.mockRestore();
    socket.close();
  });

  it('reconnects after a drop with a growing delay and reports the reconnection', async () => {
    const socket = createSocket();
    const opened = vi.fn();
    socket.onOpen(opened);
    socket.start();
    lastPeer().open();

    lastPeer().drop();
    expect(peers[0]?.closed).toBe(true);
    expect(socket.status).toBe('reconnecting');
    await vi.advanceTimersByTimeAsync(999);
    expect(peers).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(peers).toHaveLength(2);

    // The next attempts fail: 2 s, then 4 s, then 5 s (the cap).
    lastPeer().fail();
    await vi.advanceTimersByTimeAsync(2000);
    expect(peers).toHaveLength(3);
    lastPeer().fail();
    await vi.advanceTimersByTimeAsync(3999);
    expect(peers).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(peers).toHaveLength(4);
    lastPeer().fail();
    await vi.advanceTimersByTimeAsync(5000);
    expect(peers).toHaveLength(5);

    lastPeer().open();
    expect(socket.status).toBe('connected');
    expect(opened).toHaveBeenLastCalledWith({ reconnected: true });

    // Success resets the schedule: the next loss waits 1 s again.
    lastPeer().drop();
    await vi.advanceTimersByTimeAsync(1000);
    expect(peers).toHaveLength(6);
    socket.close();
  });

  it('gives up on an attempt that does not open within 20 s', async () => {
    const socket = createSocket();
    socket.start();
    await vi.advanceTimersByTimeAsync(19_999);
    expect(peers[0]?.closed).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(peers[0]?.closed).toBe(true);
    expect(socket.status).toBe('reconnecting');
    await vi.advanceTimersByTimeAsync(1000);
    expect(peers).toHaveLength(2);
    socket.close();
  });

  it('retries at once when told the network is back', async () => {
    const socket = createSocket();
    socket.start();
    lastPeer().fail();
    expect(peers).toHaveLength(1);
    socket.retryNow();
    expect(peers).toHaveLength(2);
    // Nothing is left scheduled from the skipped wait.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(peers).toHaveLength(2);
    socket.close();
  });

  it('drops the connection when the network goes away', async () => {
    const socket = createSocket();
    socket.start();
    lastPeer().open();
    socket.networkDown();
    expect(peers[0]?.closed).toBe(true);
    expect(socket.status).toBe('reconnecting');
    // Already down: nothing more to drop.
    socket.networkDown();
    socket.retryNow();
    expect(peers).toHaveLength(2);
    socket.close();
  });

  it('asks before reconnecting after the server closed the socket', async () => {
    const checkSession = vi.fn().mockResolvedValueOnce(true).mockResolvedValueOnce(false);
    const socket = createSocket({ checkSession });
    socket.start();
    lastPeer().open();

    lastPeer().serverClose();
    expect(checkSession).toHaveBeenCalledOnce();
    await vi.advanceTimersByTimeAsync(1000);
    expect(peers).toHaveLength(2);
    lastPeer().open();

    // A revoked session: stay closed.
    lastPeer().serverClose();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(peers).toHaveLength(2);
    expect(socket.status).toBe('closed');
    socket.close();
  });

  it('checks the session after every third failed attempt in a row', async () => {
    let valid = true;
    const checkSession = vi.fn(() => Promise.resolve(valid));
    const socket = createSocket({ checkSession });
    socket.start();
    lastPeer().fail(); // 1 s
    await vi.advanceTimersByTimeAsync(1000);
    lastPeer().fail(); // 2 s
    await vi.advanceTimersByTimeAsync(2000);
    expect(checkSession).not.toHaveBeenCalled();
    lastPeer().fail();
    expect(checkSession).toHaveBeenCalledOnce();
    await vi.advanceTimersByTimeAsync(4000);
    expect(peers).toHaveLength(4);

    // A refused handshake for a session that is gone: the checks end the loop.
    valid = false;
    for (let i = 0; i < 3; i++) {
      lastPeer().fail();
      await vi.advanceTimersByTimeAsync(5000);
    }
    expect(checkSession).toHaveBeenCalledTimes(2);
    expect(socket.status).toBe('closed');
    const attempts = peers.length;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(peers).toHaveLength(attempts);
    socket.close();
  });

  it('does not connect without a token', () => {
    token = null;
    const socket = createSocket();
    socket.start();
    expect(peers).toHaveLength(0);
    expect(socket.status).toBe('closed');
  });

  it('stops every timer and ignores the old peer once closed', async () => {
    const socket = createSocket();
    const online = vi.fn();
    socket.on('friend-online', online);
    socket.start();
    const first = lastPeer();
    first.fail();
    socket.close();
    socket.close();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(peers).toHaveLength(1);
    first.notify('friend-online', { userId: 'u1' });
    expect(online).not.toHaveBeenCalled();
  });

  it('sends typed requests and turns refusals into ApiErrors', async () => {
    const socket = createSocket();
    await expect(socket.request('accept-friend-request', { userId: 'u1' })).rejects.toMatchObject({
      isNetworkError: true,
    });
    socket.start();
    const peer = lastPeer();
    peer.open();
    peer.request.mockResolvedValueOnce({ ok: true });
    await expect(socket.request('accept-friend-request', { userId: 'u1' })).resolves.toEqual({ ok: true });
    expect(peer.request).toHaveBeenCalledWith('accept-friend-request', { userId: 'u1' });

    peer.request.mockRejectedValueOnce(Object.assign(new Error('FRIEND_REQUEST_NOT_FOUND'), { code: 404 }));
    const error = await socket.request('accept-friend-request', { userId: 'u1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 404, code: 'FRIEND_REQUEST_NOT_FOUND' });
    socket.close();
  });
});
