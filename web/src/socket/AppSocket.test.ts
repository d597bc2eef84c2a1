import type { ClientRequests } from '@voice/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/client.ts';
import { AppSocket, type AppSocketOptions } from './AppSocket.ts';
import { fakePeers } from './testing/FakePeer.ts';

// The connecting and backoff are ReconnectingPeer's (ReconnectingPeer.test.ts); these are the
// app socket's own parts: its URL, the session check, the server's close reasons, its events.
describe('AppSocket', () => {
  let fakes: ReturnType<typeof fakePeers<ClientRequests>>;
  /** What the next ticket request gives: a ticket, null (signed out) or a failure. */
  let nextTicket: () => Promise<string | null>;
  let ticketsAsked: number;

  function createSocket(options: Partial<AppSocketOptions> = {}): AppSocket {
    return new AppSocket({
      ticket: () => {
        ticketsAsked += 1;
        return nextTicket();
      },
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
    ticketsAsked = 0;
    nextTicket = async () => `t${ticketsAsked}`;
  });

  /** Lets an attempt's ticket arrive (a resolved promise, no time passing). */
  const settle = () => vi.advanceTimersByTimeAsync(0);
  async function started(socket: AppSocket): Promise<AppSocket> {
    socket.start();
    await settle();
    return socket;
  }

  afterEach(() => {
    vi.useRealTimers();
  });

  it('connects to /ws on the page host with a new ticket for every attempt, and reports its status', async () => {
    const socket = createSocket();
    const statuses: string[] = [];
    socket.onStatusChange((status) => statuses.push(status));
    const opened = vi.fn();
    socket.onOpen(opened);

    socket.start();
    expect(socket.status).toBe('connecting');
    await settle();
    expect(fakes.last().url).toBe('ws://app.test/ws?ticket=t1');
    fakes.last().open();
    expect(statuses).toEqual(['connecting', 'connected']);
    expect(opened).toHaveBeenCalledWith({ reconnected: false });

    // A ticket opens one handshake: the next attempt asks for another.
    fakes.last().drop();
    await vi.advanceTimersByTimeAsync(1000);
    expect(fakes.last().url).toBe('ws://app.test/ws?ticket=t2');
    expect(ticketsAsked).toBe(2);
    socket.close();
    expect(socket.status).toBe('idle');
    expect(fakes.last().closed).toBe(true);
  });

  it('follows an https page with wss', async () => {
    const socket = await started(createSocket({ location: { protocol: 'https:', host: 'voice.example' } }));
    expect(fakes.last().url).toBe('wss://voice.example/ws?ticket=t1');
    socket.close();
  });

  it('backs off like a failed connect when no ticket can be had, and the session check can end it', async () => {
    let valid = true;
    const checkSession = vi.fn(() => Promise.resolve(valid));
    nextTicket = () => Promise.reject(new ApiError(0, null, 'Network error'));
    const socket = await started(createSocket({ checkSession }));
    expect(fakes.peers).toHaveLength(0);
    expect(socket.status).toBe('reconnecting');
    // 1 s, then 2 s: the reconnect schedule, no faster.
    await vi.advanceTimersByTimeAsync(999);
    expect(ticketsAsked).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(ticketsAsked).toBe(2);
    await vi.advanceTimersByTimeAsync(2000);
    expect(ticketsAsked).toBe(3);
    expect(checkSession).toHaveBeenCalledOnce();

    // The network is back: the next attempt gets its ticket and connects.
    nextTicket = async () => 'fresh';
    await vi.advanceTimersByTimeAsync(4000);
    expect(fakes.last().url).toBe('ws://app.test/ws?ticket=fresh');
    fakes.last().open();
    expect(socket.status).toBe('connected');

    // Failing again with a session that is gone: the checks end the loop.
    nextTicket = () => Promise.reject(new ApiError(503, 'SERVICE_UNAVAILABLE', 'busy'));
    valid = false;
    fakes.last().drop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(socket.status).toBe('closed');
    const asked = ticketsAsked;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(ticketsAsked).toBe(asked);
    socket.close();
  });

  it('stays closed when there is no ticket to be had for this session (signed out, or a 401)', async () => {
    nextTicket = async () => null;
    const socket = await started(createSocket({ checkSession: () => Promise.resolve(true) }));
    expect(fakes.peers).toHaveLength(0);
    expect(socket.status).toBe('closed');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(ticketsAsked).toBe(1);
    socket.close();
  });

  it('gives a ticket request that hangs the connect time-out, then tries again', async () => {
    nextTicket = () => new Promise<string | null>(() => {});
    const socket = await started(createSocket({ connectTimeoutMs: 20_000 }));
    await vi.advanceTimersByTimeAsync(19_999);
    expect(ticketsAsked).toBe(1);
    expect(socket.status).toBe('connecting');
    nextTicket = async () => 'late';
    await vi.advanceTimersByTimeAsync(1 + 1000);
    expect(ticketsAsked).toBe(2);
    expect(fakes.last().url).toBe('ws://app.test/ws?ticket=late');
    socket.close();
  });

  it('connects nothing when closed while the ticket is on its way', async () => {
    let give: (ticket: string) => void = () => {};
    nextTicket = () => new Promise<string | null>((resolve) => (give = resolve));
    const socket = createSocket();
    socket.start();
    socket.close();
    give('too-late');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fakes.peers).toHaveLength(0);
    expect(socket.status).toBe('idle');
  });

  it('delivers typed events to their subscribers only', async () => {
    const socket = await started(createSocket());
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

  it('keeps delivering when one listener throws', async () => {
    const socket = await started(createSocket());
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
    const socket = await started(createSocket({ checkSession }));
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
    const socket = await started(createSocket());
    fakes.last().open();
    fakes.last().serverClose();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fakes.peers).toHaveLength(1);
    expect(socket.status).toBe('closed');
    socket.close();
  });

  it('stays closed, without asking, when closed as one of too many sockets, until told to reconnect', async () => {
    const checkSession = vi.fn().mockResolvedValue(true);
    const socket = await started(createSocket({ checkSession }));
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
    await settle();
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
    const socket = await started(createSocket({ checkSession }));
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
    const socket = await started(createSocket({ checkSession }));
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

  it('does not connect without a session', async () => {
    nextTicket = async () => null;
    const socket = await started(createSocket());
    expect(fakes.peers).toHaveLength(0);
    expect(socket.status).toBe('closed');
  });

  it('stops every timer and delivers nothing once closed', async () => {
    const socket = createSocket();
    const online = vi.fn();
    socket.on('friend-online', online);
    await started(socket);
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
    await started(socket);
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
