import type { ClientRequests } from '@voice/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/client.ts';
import { AppSocket, type AppSocketOptions } from './AppSocket.ts';
import { fakePeers } from './testing/FakePeer.ts';

// The connecting and backoff are ReconnectingPeer's (ReconnectingPeer.test.ts); these are the
// app socket's own parts: its URL, the session check, the server's close reasons, its events.
describe('AppSocket', () => {
  let fakes: ReturnType<typeof fakePeers<ClientRequests>>;
  let token: string | null;

  function createSocket(options: Partial<AppSocketOptions> = {}): AppSocket {
    return new AppSocket({
      token: () => token,
      location: { protocol: 'http:', host: 'app.test' },
      createPeer: fakes.create,
      // No jitter: delays are exactly 1 s, 2 s, 4 s, 5 s, ...
      random: () => 0.5,
      ...options,
    });
  }

  beforeEach(() => {
    vi.useFakeTimers();
    fakes = fakePeers<ClientRequests>();
    token = 'abc';
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('connects to /ws on the page host with the current token, and reports its status', async () => {
    const socket = createSocket();
    const statuses: string[] = [];
    socket.onStatusChange((status) => statuses.push(status));
    const opened = vi.fn();
    socket.onOpen(opened);

    socket.start();
    expect(fakes.last().url).toBe('ws://app.test/ws?token=abc');
    fakes.last().open();
    expect(statuses).toEqual(['connecting', 'connected']);
    expect(opened).toHaveBeenCalledWith({ reconnected: false });

    // A new token (signed in again) is used by the next attempt.
    token = 'def';
    fakes.last().drop();
    await vi.advanceTimersByTimeAsync(1000);
    expect(fakes.last().url).toBe('ws://app.test/ws?token=def');
    socket.close();
    expect(socket.status).toBe('idle');
    expect(fakes.last().closed).toBe(true);
  });

  it('follows an https page with wss', () => {
    const socket = createSocket({ location: { protocol: 'https:', host: 'voice.example' } });
    socket.start();
    expect(fakes.last().url).toBe('wss://voice.example/ws?token=abc');
    socket.close();
  });

  it('delivers typed events to their subscribers only', () => {
    const socket = createSocket();
    socket.start();
    fakes.last().open();
    const online = vi.fn();
    const offline = vi.fn();
    const unsubscribe = socket.on('friend-online', online);
    socket.on('friend-offline', offline);

    fakes.last().notify('friend-online', { userId: 'u1' });
    unsubscribe();
    fakes.last().notify('friend-online', { userId: 'u2' });
    fakes.last().notify('unknown-event', {});

    expect(online).toHaveBeenCalledTimes(1);
    expect(online).toHaveBeenCalledWith({ userId: 'u1' });
    expect(offline).not.toHaveBeenCalled();
    socket.close();
  });

  it('keeps delivering when one listener throws', () => {
    const socket = createSocket();
    socket.start();
    fakes.last().open();
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const second = vi.fn();
    socket.on('friend-removed', () => {
      throw new Error('boom');
    });
    socket.on('friend-removed', second);
    fakes.last().notify('friend-removed', { userId: 'u1' });
    expect(second).toHaveBeenCalledOnce();
    expect(error).toHaveBeenCalledOnce();
    error.mockRestore();
    socket.close();
  });

  it('asks before reconnecting after the server closed the socket', async () => {
    const checkSession = vi.fn().mockResolvedValueOnce(true).mockResolvedValueOnce(false);
    const socket = createSocket({ checkSession });
    socket.start();
    fakes.last().open();

    fakes.last().serverClose();
    expect(checkSession).toHaveBeenCalledOnce();
    await vi.advanceTimersByTimeAsync(1000);
    expect(fakes.peers).toHaveLength(2);
    fakes.last().open();

    // A revoked session: stay closed.
    fakes.last().serverClose();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fakes.peers).toHaveLength(2);
    expect(socket.status).toBe('closed');
    expect(socket.closedBecause).toBeNull();
    socket.close();
  });

  it('stays closed without a session check: a server close is final', async () => {
    const socket = createSocket();
    socket.start();
    fakes.last().open();
    fakes.last().serverClose();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fakes.peers).toHaveLength(1);
    expect(socket.status).toBe('closed');
    socket.close();
  });

  it('stays closed, without asking, when closed as one of too many sockets, until told to reconnect', async () => {
    const checkSession = vi.fn().mockResolvedValue(true);
    const socket = createSocket({ checkSession });
    socket.start();
    fakes.last().open();

    fakes.last().notify('socket-closing', { reason: 'too-many-sockets' });
    fakes.last().serverClose();
    await vi.advanceTimersByTimeAsync(60_000);
    // Coming back by itself would close another of the person's tabs, and so on for ever.
    expect(fakes.peers).toHaveLength(1);
    expect(checkSession).not.toHaveBeenCalled();
    expect(socket.status).toBe('closed');
    expect(socket.closedBecause).toBe('too-many-sockets');

    socket.reconnect();
    expect(fakes.peers).toHaveLength(2);
    fakes.last().open();
    expect(socket.status).toBe('connected');
    expect(socket.closedBecause).toBeNull();

    // Another close without that reason (an expired session) goes through the session check again.
    fakes.last().notify('socket-closing', { reason: 'session-expired' });
    fakes.last().serverClose();
    expect(checkSession).toHaveBeenCalledOnce();
    await vi.advanceTimersByTimeAsync(1000);
    expect(fakes.peers).toHaveLength(3);

    // A reason said on an earlier connection does not stick to the next one.
    fakes.last().open();
    fakes.last().drop();
    await vi.advanceTimersByTimeAsync(1000);
    fakes.last().open();
    fakes.last().serverClose();
    expect(checkSession).toHaveBeenCalledTimes(2);
    socket.close();
  });

  it('ignores a close reason it does not know', async () => {
    const checkSession = vi.fn().mockResolvedValue(true);
    const socket = createSocket({ checkSession });
    socket.start();
    fakes.last().open();
    fakes.last().notify('socket-closing', { reason: { toString: 'x' } });
    fakes.last().serverClose();
    expect(checkSession).toHaveBeenCalledOnce();
    await vi.advanceTimersByTimeAsync(1000);
    expect(fakes.peers).toHaveLength(2);
    socket.close();
  });

  it('checks the session after every third failed attempt in a row', async () => {
    let valid = true;
    const checkSession = vi.fn(() => Promise.resolve(valid));
    const socket = createSocket({ checkSession });
    socket.start();
    fakes.last().fail(); // 1 s
    await vi.advanceTimersByTimeAsync(1000);
    fakes.last().fail(); // 2 s
    await vi.advanceTimersByTimeAsync(2000);
    expect(checkSession).not.toHaveBeenCalled();
    fakes.last().fail();
    expect(checkSession).toHaveBeenCalledOnce();
    await vi.advanceTimersByTimeAsync(4000);
    expect(fakes.peers).toHaveLength(4);

    // A refused handshake for a session that is gone: the checks end the loop.
    valid = false;
    for (let i = 0; i < 3; i++) {
      fakes.last().fail();
      await vi.advanceTimersByTimeAsync(5000);
    }
    expect(checkSession).toHaveBeenCalledTimes(2);
    expect(socket.status).toBe('closed');
    const attempts = fakes.peers.length;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fakes.peers).toHaveLength(attempts);
    socket.close();
  });

  it('does not connect without a token', () => {
    token = null;
    const socket = createSocket();
    socket.start();
    expect(fakes.peers).toHaveLength(0);
    expect(socket.status).toBe('closed');
  });

  it('stops every timer and delivers nothing once closed', async () => {
    const socket = createSocket();
    const online = vi.fn();
    socket.on('friend-online', online);
    socket.start();
    const first = fakes.last();
    first.open();
    first.drop();
    socket.close();
    socket.close();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fakes.peers).toHaveLength(1);
    first.notify('friend-online', { userId: 'u1' });
    expect(online).not.toHaveBeenCalled();
  });

  it("sends the protocol's requests and turns refusals into ApiErrors", async () => {
    const socket = createSocket();
    await expect(socket.request('accept-friend-request', { userId: 'u1' })).rejects.toMatchObject({
      isNetworkError: true,
    });
    socket.start();
    const peer = fakes.last();
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
