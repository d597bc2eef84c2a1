import { RTC_ERROR } from '@voice/media-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handshake } from './testing/handshake.ts';
import { hostileFrames } from './testing/hostileFrames.ts';
import { RawSocket } from './testing/RawSocket.ts';
import { SocketClient } from './testing/SocketClient.ts';
import { socketTicket } from './testing/socketTicket.ts';
import { signUp, TestServer } from './testing/TestServer.ts';

// An API with its embedded media server; the test's own room-token check admits `token=member-N`.
let server: TestServer;
let ws: string;
beforeAll(async () => {
  server = await TestServer.start(
    {},
    {
      media: {
        authenticate: async (url) => {
          const token = url.searchParams.get('token') ?? '';
          return /^member-\d+$/.test(token) ? { peerId: token, roomId: 'room-1' } : null;
        },
      },
    },
  );
  ws = server.baseUrl.replace('http', 'ws');
});
afterAll(() => server?.close());

describe('WebSocket upgrades routed by path', () => {
  it('hands /rtc to the media server, which refuses a connection without a room token', async () => {
    expect(await handshake(`${ws}/rtc`)).toEqual({
      status: RTC_ERROR.unauthorized,
      reason: 'Room token required',
    });
    expect(await handshake(`${ws}/rtc?token=forged`)).toMatchObject({ status: 401 });
    expect(await handshake(`${ws}/rtc?token=member-1`)).toMatchObject({ status: 101 });
  });

  it('hands /ws to the app socket and answers 404 to any other path', async () => {
    const a = await signUp(server);
    const ticket = await socketTicket(server.baseUrl, a.token);
    for (const path of ['/other', '/ws/x', '/rtc/', '/api/auth/me', '/', '/%zz']) {
      expect((await handshake(`${ws}${path}?ticket=${ticket}`)).status, path).toBe(404);
    }
    expect((await handshake(`${ws}/ws?ticket=${ticket}`)).status).toBe(101);
  });

  it('/rtc survives hostile frames as /ws does, and answers an unknown method with 404', async () => {
    const member = await RawSocket.connectUrl(`${ws}/rtc?token=member-2`);
    const reply = await member.request('noSuchMethod', {});
    expect(reply, JSON.stringify(reply)).toMatchObject({ errorCode: RTC_ERROR.notFound });
    const frames = hostileFrames(400, 7);
    let sent = 0;
    for (const frame of frames) {
      const socket = member.open ? member : await RawSocket.connectUrl(`${ws}/rtc?token=member-${3 + sent}`);
      if (frame.kind === 'binary') socket.sendBinary(frame.bytes);
      else if (frame.kind === 'raw-text') socket.sendRawText(frame.bytes);
      else socket.sendText(frame.text);
      sent += 1;
    }
    const again = await RawSocket.connectUrl(`${ws}/rtc?token=member-1000`);
    expect(await again.request('noSuchMethod', {})).toMatchObject({ errorCode: 404 });
    again.close();
    const health = await fetch(`${server.baseUrl}/api/health`);
    expect(health.status).toBe(200);
  });

  it('replacing a connection of the same peer closes only the older one', async () => {
    const first = await RawSocket.connectUrl(`${ws}/rtc?token=member-77`);
    const second = await RawSocket.connectUrl(`${ws}/rtc?token=member-77`);
    await first.waitClosed();
    expect(second.open).toBe(true);
    second.close();
  });
});

describe('delivery to one connection', () => {
  it('reaches only the tab it names, and never a tab of someone else', async () => {
    const a = await signUp(server);
    const b = await signUp(server);
    const tab1 = await SocketClient.connect(server.baseUrl, a.token);
    const tab2 = await SocketClient.connect(server.baseUrl, a.token);
    const other = await SocketClient.connect(server.baseUrl, b.token);
    try {
      const [id1, id2] = server.server.socket.connectionIds(a.user.id);
      expect(id1 && id2).toBeTruthy();
      const [otherId] = server.server.socket.connectionIds(b.user.id);
      const { notifier } = server.services;
      await notifier.notifyConnection(a.user.id, id1 as string, 'friend-online', { userId: 'to-tab-1' });
      // Addressed to b's tab but under a's name: goes nowhere.
      await notifier.notifyConnection(a.user.id, otherId as string, 'friend-online', { userId: 'mismatch' });
      await notifier.notify(a.user.id, 'friend-online', { userId: 'to-every-tab' });
      await tab1.waitFor('friend-online', (d) => d.userId === 'to-every-tab');
      await tab2.waitFor('friend-online', (d) => d.userId === 'to-every-tab');
      const heard = (client: SocketClient) =>
        client.received.filter((r) => r.method === 'friend-online').map((r) => r.data.userId);
      expect(heard(tab1)).toEqual(['to-tab-1', 'to-every-tab']);
      expect(heard(tab2)).toEqual(['to-every-tab']);
      expect(heard(other)).toEqual([]);
    } finally {
      tab1.close();
      tab2.close();
      other.close();
    }
  });
});
