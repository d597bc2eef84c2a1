import { SOCKET } from '@voice/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/client.ts';
import { ReconnectingPeer, type ReconnectingPeerOptions } from './ReconnectingPeer.ts';
import { fakePeers } from './testing/FakePeer.ts';

/** A protocol of its own: the class knows nothing of the app socket's. */
interface TestRequests {
  echo: { data: { text: string }; reply: { text: string } };
}
interface TestEvents {
  tick: { n: number };
  tock: { at: string };
}

describe('ReconnectingPeer', () => {
  let fakes: ReturnType<typeof fakePeers<TestRequests>>;
  let url: string | null;

  function createPeer(options: Partial<ReconnectingPeerOptions<TestRequests>> = {}) {
    return new ReconnectingPeer<TestRequests, TestEvents>({
      url: () => url,
      createPeer: fakes.create,
      // No jitter: delays are exactly 1 s, 2 s, 4 s, 5 s, ...
      random: () => 0.5,
      ...options,
    });
  }

  beforeEach(() => {
    vi.useFakeTimers();
    fakes = fakePeers<TestRequests>();
    url = 'ws://media.test/rtc?token=r1';
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('connects to the current URL and reports its status', () => {
    const peer = createPeer();
    const statuses: string[] = [];
    peer.onStatusChange((status) => statuses.push(status));
    const opened = vi.fn();
    peer.onOpen(opened);

    peer.start();
    peer.start();
    expect(fakes.peers).toHaveLength(1);
    expect(fakes.last().url).toBe('ws://media.test/rtc?token=r1');
    fakes.last().open();

    expect(statuses).toEqual(['connecting', 'connected']);
    expect(opened).toHaveBeenCalledWith({ reconnected: false });
    peer.close();
    expect(peer.status).toBe('idle');
    expect(fakes.last().closed).toBe(true);
  });

  it('reconnects after a drop on the spec schedule (1 s doubling to 5 s) and says it reconnected', async () => {
    const peer = createPeer();
    const opened = vi.fn();
    peer.onOpen(opened);
    peer.start();
    fakes.last().open();

    fakes.last().drop();
    expect(fakes.peers[0]?.closed).toBe(true);
    expect(peer.status).toBe('reconnecting');
    await vi.advanceTimersByTimeAsync(999);
    expect(fakes.peers).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fakes.peers).toHaveLength(2);

    // The next attempts fail: 2 s, then 4 s, then 5 s (the cap), for as long as it takes.
    fakes.last().fail();
    await vi.advanceTimersByTimeAsync(2000);
    expect(fakes.peers).toHaveLength(3);
    fakes.last().fail();
    await vi.advanceTimersByTimeAsync(3999);
    expect(fakes.peers).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(fakes.peers).toHaveLength(4);
    for (let i = 0; i < 20; i++) {
      fakes.last().fail();
      await vi.advanceTimersByTimeAsync(SOCKET.reconnectDelayMaxMs);
    }
    expect(fakes.peers).toHaveLength(24);

    fakes.last().open();
    expect(peer.status).toBe('connected');
    expect(opened).toHaveBeenLastCalledWith({ reconnected: true });

    // Success resets the schedule: the next loss waits 1 s again.
    fakes.last().drop();
    await vi.advanceTimersByTimeAsync(1000);
    expect(fakes.peers).toHaveLength(25);
    peer.close();
  });

  it('reconnects at once when the server goes away (1001), then waits on the schedule', async () => {
    const peer = createPeer();
    const opened = vi.fn();
    peer.onOpen(opened);
    peer.start();
    fakes.last().open();

    fakes.last().goAway();
    expect(fakes.peers[0]?.closed).toBe(true);
    expect(fakes.peers).toHaveLength(2);
    expect(peer.status).toBe('reconnecting');

    // That node is gone too: from here on the usual 1 s, 2 s, ...
    fakes.last().fail();
    await vi.advanceTimersByTimeAsync(999);
    expect(fakes.peers).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(fakes.peers).toHaveLength(3);
    fakes.last().open();
    expect(opened).toHaveBeenLastCalledWith({ reconnected: true });

    // Open again: the next shutdown is met at once again.
    fakes.last().goAway();
    expect(fakes.peers).toHaveLength(4);
    peer.close();
  });

  it('gives up on an attempt that does not open within 20 s', async () => {
    const peer = createPeer();
    peer.start();
    await vi.advanceTimersByTimeAsync(SOCKET.connectTimeoutMs - 1);
    expect(fakes.peers[0]?.closed).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(fakes.peers[0]?.closed).toBe(true);
    expect(peer.status).toBe('reconnecting');
    await vi.advanceTimersByTimeAsync(1000);
    expect(fakes.peers).toHaveLength(2);
    peer.close();
  });

  it('retries at once when told the network is back', async () => {
    const peer = createPeer();
    peer.start();
    fakes.last().fail();
    expect(fakes.peers).toHaveLength(1);
    peer.retryNow();
    expect(fakes.peers).toHaveLength(2);
    // Nothing is left scheduled from the skipped wait.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(fakes.peers).toHaveLength(2);
    peer.close();
  });

  it('back online while an attempt begun offline is on its way: a fresh one at once', async () => {
    const tickets: Array<(url: string) => void> = [];
    const peer = createPeer({ url: () => new Promise<string>((resolve) => tickets.push(resolve)) });
    peer.start();
    // The ticket came; the socket it opened has not answered yet when the network comes back.
    tickets[0]?.('ws://media.test/rtc?ticket=t1');
    await vi.advanceTimersByTimeAsync(0);
    expect(fakes.peers).toHaveLength(1);
    peer.retryNow();
    expect(fakes.peers[0]?.closed).toBe(true);
    expect(tickets).toHaveLength(2);
    // The next ticket request is the one on its way now: the network comes back again.
    peer.retryNow();
    expect(tickets).toHaveLength(3);
    // The dropped requests' answers open nothing.
    tickets[1]?.('ws://media.test/rtc?ticket=t2');
    await vi.advanceTimersByTimeAsync(0);
    expect(fakes.peers).toHaveLength(1);
    tickets[2]?.('ws://media.test/rtc?ticket=t3');
    await vi.advanceTimersByTimeAsync(0);
    expect(fakes.peers).toHaveLength(2);
    expect(fakes.last().url).toBe('ws://media.test/rtc?ticket=t3');
    fakes.last().open();
    expect(peer.status).toBe('connected');
    // Open: being told the network is back changes nothing.
    peer.retryNow();
    expect(fakes.peers).toHaveLength(2);
    expect(fakes.last().closed).toBe(false);
    peer.close();
  });

  it('back online while the session check after failures is on its way: an attempt now, the late answer ignored', async () => {
    let answer: (again: boolean) => void = () => {};
    const peer = createPeer({ shouldRetry: () => new Promise<boolean>((resolve) => (answer = resolve)) });
    peer.start();
    fakes.last().fail();
    await vi.advanceTimersByTimeAsync(1000);
    fakes.last().fail();
    await vi.advanceTimersByTimeAsync(2000);
    // The third failure in a row asks; the question was sent offline.
    fakes.last().fail();
    expect(fakes.peers).toHaveLength(3);
    peer.retryNow();
    expect(fakes.peers).toHaveLength(4);
    answer(true);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(fakes.peers).toHaveLength(4);
    fakes.last().open();
    expect(peer.status).toBe('connected');
    peer.close();
  });

  it('drops the connection when the network goes away', () => {
    const peer = createPeer();
    peer.start();
    fakes.last().open();
    peer.networkDown();
    expect(fakes.peers[0]?.closed).toBe(true);
    expect(peer.status).toBe('reconnecting');
    // Already down: nothing more to drop.
    peer.networkDown();
    peer.retryNow();
    expect(fakes.peers).toHaveLength(2);
    peer.close();
  });

  it('stays closed after the server closed it, unless asked to come back', async () => {
    const peer = createPeer();
    peer.start();
    fakes.last().open();
    fakes.last().serverClose();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fakes.peers).toHaveLength(1);
    expect(peer.status).toBe('closed');

    peer.reconnect();
    expect(fakes.peers).toHaveLength(2);
    fakes.last().open();
    expect(peer.status).toBe('connected');
    // Only a closed connection is reconnected.
    peer.reconnect();
    expect(fakes.peers).toHaveLength(2);
    peer.close();
  });

  it('asks shouldRetry after a server close, and waits for an answer given later', async () => {
    const answers = [Promise.resolve(true), false];
    const shouldRetry = vi.fn(() => answers.shift() ?? false);
    const peer = createPeer({ shouldRetry });
    const statuses: string[] = [];
    peer.onStatusChange((status) => statuses.push(status));
    peer.start();
    fakes.last().open();

    fakes.last().serverClose();
    expect(shouldRetry).toHaveBeenLastCalledWith('server-closed');
    expect(peer.status).toBe('reconnecting');
    await vi.advanceTimersByTimeAsync(1000);
    expect(fakes.peers).toHaveLength(2);
    fakes.last().open();

    // A plain "no" closes at once, without showing "reconnecting" first.
    statuses.length = 0;
    fakes.last().serverClose();
    expect(statuses).toEqual(['closed']);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fakes.peers).toHaveLength(2);
    peer.close();
  });

  it('retries when shouldRetry fails to answer', async () => {
    const peer = createPeer({ shouldRetry: () => Promise.reject(new Error('offline')) });
    peer.start();
    fakes.last().open();
    fakes.last().serverClose();
    await vi.advanceTimersByTimeAsync(1000);
    expect(fakes.peers).toHaveLength(2);
    peer.close();
  });

  it('asks shouldRetry after every third failed attempt in a row', async () => {
    let again = true;
    const shouldRetry = vi.fn(() => Promise.resolve(again));
    const peer = createPeer({ shouldRetry });
    peer.start();
    fakes.last().fail(); // 1 s
    await vi.advanceTimersByTimeAsync(1000);
    fakes.last().fail(); // 2 s
    await vi.advanceTimersByTimeAsync(2000);
    expect(shouldRetry).not.toHaveBeenCalled();
    fakes.last().fail();
    expect(shouldRetry).toHaveBeenCalledExactlyOnceWith('failing');
    await vi.advanceTimersByTimeAsync(4000);
    expect(fakes.peers).toHaveLength(4);

    again = false;
    for (let i = 0; i < 3; i++) {
      fakes.last().fail();
      await vi.advanceTimersByTimeAsync(5000);
    }
    expect(shouldRetry).toHaveBeenCalledTimes(2);
    expect(peer.status).toBe('closed');
    const attempts = fakes.peers.length;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fakes.peers).toHaveLength(attempts);
    peer.close();
  });

  it('does not connect without a URL', () => {
    url = null;
    const peer = createPeer();
    peer.start();
    expect(fakes.peers).toHaveLength(0);
    expect(peer.status).toBe('closed');
  });

  it('hands each notification of the open connection to every listener, even when one throws', () => {
    const peer = createPeer();
    peer.start();
    fakes.last().open();
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const seen: unknown[] = [];
    peer.onNotification(() => {
      throw new Error('boom');
    });
    const unsubscribe = peer.onNotification((notification) => {
      // Typed by the declaration: `data` follows `method`.
      if (notification.method === 'tick') seen.push(notification.data.n);
      else seen.push(notification.data.at);
    });
    fakes.last().notify('tick', { n: 1 });
    fakes.last().notify('tock', { at: 'noon' });
    unsubscribe();
    fakes.last().notify('tick', { n: 2 });
    expect(seen).toEqual([1, 'noon']);
    expect(error).toHaveBeenCalledTimes(3);
    error.mockRestore();
    peer.close();
  });

  it('stops every timer and ignores the old connection once closed', async () => {
    const peer = createPeer();
    const heard = vi.fn();
    peer.onNotification(heard);
    peer.start();
    const first = fakes.last();
    first.open();
    first.drop();
    peer.close();
    peer.close();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fakes.peers).toHaveLength(1);
    first.notify('tick', { n: 1 });
    expect(heard).not.toHaveBeenCalled();
    expect(peer.status).toBe('idle');
  });

  it('sends typed requests and turns refusals into ApiErrors', async () => {
    const peer = createPeer();
    await expect(peer.request('echo', { text: 'hi' })).rejects.toMatchObject({ isNetworkError: true });
    peer.start();
    const transport = fakes.last();
    transport.open();
    transport.request.mockResolvedValueOnce({ text: 'hi' });
    await expect(peer.request('echo', { text: 'hi' })).resolves.toEqual({ text: 'hi' });
    expect(transport.request).toHaveBeenCalledWith('echo', { text: 'hi' });

    transport.request.mockRejectedValueOnce(Object.assign(new Error('RATE_LIMITED'), { code: 429 }));
    const refusal = await peer.request('echo', { text: 'hi' }).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal).toMatchObject({ status: 429, code: 'RATE_LIMITED' });

    // A request cut off by a lost connection carries no status: a network error.
    transport.request.mockRejectedValueOnce(new Error('peer closed'));
    await expect(peer.request('echo', { text: 'hi' })).rejects.toMatchObject({ status: 0, code: null });
    peer.close();
  });
});
