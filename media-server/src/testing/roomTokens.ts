/** Room tokens as the API signs them, for tests of the media server. */
import { randomUUID } from 'node:crypto';
import { FORWARDING, ROOM_TOKEN, type RoomTokenClaims } from '@voice/protocol';
import jwt from 'jsonwebtoken';

export const TEST_MEDIA_SECRET = 'test-media-secret-test-media-secret!';

/** A signed room token for `sub` in `roomId`; `claims` overrides any claim (iat/exp in seconds). */
export function signRoomToken(
  roomId: string,
  sub: string,
  claims: Partial<RoomTokenClaims> & Record<string, unknown> = {},
  secret: string = TEST_MEDIA_SECRET,
): string {
  const iat = Math.floor(Date.now() / 1000);
  const payload = {
    sub,
    roomId,
    displayName: `Person ${sub}`,
    avatarUrl: null,
    permissions: { admin: false, moderator: false },
    loudest: FORWARDING.loudestDefault,
    stage: false,
    jti: randomUUID(),
    aud: ROOM_TOKEN.audience,
    iss: ROOM_TOKEN.issuer,
    iat,
    exp: iat + ROOM_TOKEN.ttlSeconds,
    ...claims,
  };
  return jwt.sign(payload, secret, { algorithm: 'HS256' });
}
