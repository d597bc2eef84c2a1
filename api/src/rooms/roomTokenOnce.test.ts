/**
 * A room token opens one `/rtc` connection (issue 19, item 7): the API mints it for one join
 * (ROOM_TOKEN.ttlSeconds, a fresh `jti`), and the real media server embedded in the API spends
 * it on the first connection it admits. Expiry is judged by the media server's verifier
 * (media-server/src/roomToken.test.ts).
 */
import { RTC_ERROR } from '@voice/media-server';
import { type JoinRoomResponse, ROOM_ROUTES, ROOM_TOKEN } from '@voice/protocol';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handshake } from '../testing/handshake.ts';
import { RawSocket } from '../testing/RawSocket.ts';
import { signUp, TestServer } from '../testing/TestServer.ts';

const MEDIA_SECRET = 'room-token-once-Qd8Lm3Vx7Rk1Wp5Tz9Hs4Nc2Jb6Fy0Ga';

let server: TestServer;
beforeAll(async () => {
  server = await TestServer.start({ MEDIA_SECRET }, { media: { secret: MEDIA_SECRET } });
});
afterAll(() => server?.close());

describe('a room token at /rtc', () => {
  it('opens one connection: the same token again is refused with 401, the first stays open', async () => {
    const admin = await signUp(server);
    const created = await server.request('POST', ROOM_ROUTES.rooms, {
      token: admin.token,
      body: { name: 'Once', type: 'public' },
    });
    expect(created.status).toBe(201);
    const roomId = created.body.room.id as string;
    const joined = await server.request<JoinRoomResponse>('POST', ROOM_ROUTES.join(roomId), {
      token: admin.token,
      body: {},
    });
    expect(joined.status, JSON.stringify(joined.body)).toBe(200);
    const { roomToken } = joined.body;
    const claims = jwt.decode(roomToken) as jwt.JwtPayload;
    expect((claims.exp as number) - (claims.iat as number)).toBe(ROOM_TOKEN.ttlSeconds);

    const rtc = (peerId: string) =>
      `${server.baseUrl.replace(/^http/, 'ws')}/rtc?${new URLSearchParams({ roomId, peerId, token: roomToken })}`;
    // Presented for someone else, it is refused and stays unspent.
    expect((await handshake(rtc('00000000-0000-4000-8000-000000000000'))).status).toBe(
      RTC_ERROR.unauthorized,
    );

    const member = await RawSocket.connectUrl(rtc(admin.user.id));
    try {
      expect(await member.request('getRouterRtpCapabilities', {})).toMatchObject({ ok: true });
      expect(await handshake(rtc(admin.user.id))).toEqual({
        status: RTC_ERROR.unauthorized,
        reason: 'Room token required',
      });
      // The refused copy did not replace the member's connection.
      expect(member.open).toBe(true);
      expect(await member.request('getRouterRtpCapabilities', {})).toMatchObject({ ok: true });
    } finally {
      member.close();
    }
    // Nor does it work once the first connection has gone.
    expect((await handshake(rtc(admin.user.id))).status).toBe(RTC_ERROR.unauthorized);
  });
});
