import { FORWARDING, ROOM_TOKEN } from '@voice/protocol';
import jwt from 'jsonwebtoken';
import { describe, expect, it } from 'vitest';
import { roomTokenAuthenticator, roomTokenVerifier } from './roomToken.ts';
import { signRoomToken, TEST_MEDIA_SECRET } from './testing/roomTokens.ts';

const rtcUrl = (query: Record<string, string>) => new URL(`http://media/rtc?${new URLSearchParams(query)}`);
const forUser1 = { roomId: 'room-1', peerId: 'user-1' };
const forU = { roomId: 'room-1', peerId: 'u' };

describe('roomTokenVerifier()', () => {
  it('roomTokenVerifier() returns the claims of a valid token, once', () => {
    const verify = roomTokenVerifier(TEST_MEDIA_SECRET);
    const token = signRoomToken('room-1', 'user-1', { permissions: { admin: true, moderator: false } });
    expect(verify(token, forUser1)).toMatchObject({
      sub: 'user-1',
      roomId: 'room-1',
      displayName: 'Person user-1',
      avatarUrl: null,
      permissions: { admin: true },
      aud: ROOM_TOKEN.audience,
      iss: ROOM_TOKEN.issuer,
    });
    expect(verify(token, forUser1)).toBeNull();
  });

  it('roomTokenVerifier() spends a token only when it is presented for its own room and person', () => {
    const verify = roomTokenVerifier(TEST_MEDIA_SECRET);
    const token = signRoomToken('room-1', 'user-1');
    expect(verify(token, { roomId: 'room-2', peerId: 'user-1' })).toBeNull();
    expect(verify(token, { roomId: 'room-1', peerId: 'user-2' })).toBeNull();
    expect(verify(token, forUser1)?.sub).toBe('user-1');
    expect(verify(token, forUser1)).toBeNull();
  });

  it('roomTokenVerifier() accepts the secret as a Buffer', () => {
    const verify = roomTokenVerifier(Buffer.from(TEST_MEDIA_SECRET));
    expect(verify(signRoomToken('room-1', 'user-1'), forUser1)?.sub).toBe('user-1');
  });

  it('roomTokenVerifier() refuses expired, foreign, unsigned and malformed tokens', () => {
    const verify = roomTokenVerifier(TEST_MEDIA_SECRET);
    const past = Math.floor(Date.now() / 1000) - 120;
    const refused = {
      expired: signRoomToken('room-1', 'u', { iat: past, exp: past + 60 }),
      otherSecret: signRoomToken('room-1', 'u', {}, 'another-secret-another-secret-another'),
      otherAudience: signRoomToken('room-1', 'u', { aud: 'api' as 'media' }),
      otherIssuer: signRoomToken('room-1', 'u', { iss: 'someone' as 'voice-api' }),
      unsigned: jwt.sign({ ...(jwt.decode(signRoomToken('room-1', 'u')) as object) }, '', {
        algorithm: 'none',
      }),
      hs512: jwt.sign({ ...(jwt.decode(signRoomToken('room-1', 'u')) as object) }, TEST_MEDIA_SECRET, {
        algorithm: 'HS512',
      }),
      noPermissions: signRoomToken('room-1', 'u', { permissions: undefined }),
      noJti: signRoomToken('room-1', 'u', { jti: undefined }),
      notAJwt: 'not-a-token',
    };
    for (const [name, token] of Object.entries(refused)) expect(verify(token, forU), name).toBeNull();
  });

  it('roomTokenVerifier() judges expiry by its own clock', () => {
    let now = Date.now();
    const verify = roomTokenVerifier(TEST_MEDIA_SECRET, () => now);
    expect(verify(signRoomToken('room-1', 'early'), { roomId: 'room-1', peerId: 'early' })).not.toBeNull();
    const late = signRoomToken('room-1', 'late');
    now += (ROOM_TOKEN.ttlSeconds + 1) * 1000;
    expect(verify(late, { roomId: 'room-1', peerId: 'late' })).toBeNull();
  });
});

describe('roomTokenAuthenticator()', () => {
  it('roomTokenAuthenticator() admits the room and person the token names', async () => {
    const authenticate = roomTokenAuthenticator(roomTokenVerifier(TEST_MEDIA_SECRET));
    const token = signRoomToken('room-1', 'user-1', { displayName: 'Ada', avatarUrl: '/a.png', loudest: 5 });
    expect(await authenticate(rtcUrl({ roomId: 'room-1', peerId: 'user-1', token }))).toEqual({
      peerId: 'user-1',
      roomId: 'room-1',
      displayName: 'Ada',
      avatarUrl: '/a.png',
      admin: false,
      moderator: false,
      loudest: 5,
      stage: false,
    });
  });

  it('roomTokenAuthenticator() takes the default K from a token that names none, and refuses one out of bounds', async () => {
    const authenticate = roomTokenAuthenticator(roomTokenVerifier(TEST_MEDIA_SECRET));
    const older = signRoomToken('room-1', 'user-1', { loudest: undefined });
    expect(await authenticate(rtcUrl({ roomId: 'room-1', peerId: 'user-1', token: older }))).toMatchObject({
      loudest: FORWARDING.loudestDefault,
    });
    for (const loudest of [0, 9, 2.5, '3', null]) {
      const token = signRoomToken('room-1', 'user-1', { loudest: loudest as number });
      expect(await authenticate(rtcUrl({ roomId: 'room-1', peerId: 'user-1', token }))).toBeNull();
    }
  });

  it('roomTokenAuthenticator() reads a stage, takes none from a token that names none, and refuses a stage that is no boolean', async () => {
    const authenticate = roomTokenAuthenticator(roomTokenVerifier(TEST_MEDIA_SECRET));
    const at = (token: string) => authenticate(rtcUrl({ roomId: 'room-1', peerId: 'user-1', token }));
    expect(await at(signRoomToken('room-1', 'user-1', { stage: true }))).toMatchObject({ stage: true });
    expect(await at(signRoomToken('room-1', 'user-1', { stage: undefined }))).toMatchObject({ stage: false });
    for (const stage of ['yes', 1, null]) {
      expect(await at(signRoomToken('room-1', 'user-1', { stage: stage as unknown as boolean }))).toBeNull();
    }
  });

  it('roomTokenAuthenticator() refuses another room, another person or missing parameters', async () => {
    const authenticate = roomTokenAuthenticator(roomTokenVerifier(TEST_MEDIA_SECRET));
    const token = () => signRoomToken('room-1', 'user-1');
    expect(await authenticate(rtcUrl({ roomId: 'room-2', peerId: 'user-1', token: token() }))).toBeNull();
    expect(await authenticate(rtcUrl({ roomId: 'room-1', peerId: 'user-2', token: token() }))).toBeNull();
    expect(await authenticate(rtcUrl({ roomId: 'room-1', peerId: 'user-1' }))).toBeNull();
    expect(await authenticate(rtcUrl({ peerId: 'user-1', token: token() }))).toBeNull();
  });

  it('roomTokenAuthenticator() leaves a token presented for another room or person unspent', async () => {
    const authenticate = roomTokenAuthenticator(roomTokenVerifier(TEST_MEDIA_SECRET));
    const token = signRoomToken('room-1', 'user-1');
    expect(await authenticate(rtcUrl({ roomId: 'room-2', peerId: 'user-1', token }))).toBeNull();
    expect(await authenticate(rtcUrl({ roomId: 'room-1', peerId: 'user-2', token }))).toBeNull();
    expect(await authenticate(rtcUrl({ roomId: 'room-1', peerId: 'user-1', token }))).toMatchObject({
      peerId: 'user-1',
      roomId: 'room-1',
    });
    expect(await authenticate(rtcUrl({ roomId: 'room-1', peerId: 'user-1', token }))).toBeNull();
  });
});
