/**
 * Room tokens: the API's word to a media server that a person may enter a room (protocol's
 * RoomTokenClaims). Signed with the media secret, which media servers hold instead of the
 * JWT secret, so a media server can admit members but never mint sessions.
 */
import { createSecretKey, hkdfSync, type KeyObject, randomUUID } from 'node:crypto';
import { ROOM_TOKEN, type RoomPermissions } from '@voice/protocol';
import jwt from 'jsonwebtoken';
import type { Config } from '../config.ts';

const ALGORITHM = 'HS256';
const HKDF_INFO = 'voice media room token';
const KEY_BYTES = 32;

/**
 * The key room tokens are signed and checked with: MEDIA_SECRET when set, otherwise one
 * derived from the JWT secret (HKDF-SHA256), so the embedded setup needs no setting. main.ts
 * hands the same key to the embedded media server.
 */
export function mediaSecretKey(config: Pick<Config, 'jwtSecret' | 'mediaSecret'>): KeyObject {
  if (config.mediaSecret !== null) return createSecretKey(Buffer.from(config.mediaSecret, 'utf8'));
  const derived = hkdfSync(
    'sha256',
    Buffer.from(config.jwtSecret, 'utf8'),
    Buffer.alloc(0),
    HKDF_INFO,
    KEY_BYTES,
  );
  return createSecretKey(Buffer.from(derived));
}

/** Who enters which room, as the other members will see them. */
export interface RoomTokenSubject {
  userId: string;
  roomId: string;
  displayName: string;
  avatarUrl: string | null;
  permissions: RoomPermissions;
  /** The room's `loudest` now: the media server forwards that many voices to them. */
  loudest: number;
  /** The room is a stage: the media server lets only its speakers talk. */
  stage: boolean;
}

export class RoomTokens {
  constructor(readonly key: KeyObject) {}

  /** A token valid ROOM_TOKEN.ttlSeconds, with a fresh `jti` so the media server takes it once. */
  sign({ userId, roomId, displayName, avatarUrl, permissions, loudest, stage }: RoomTokenSubject): string {
    return jwt.sign({ roomId, displayName, avatarUrl, permissions, loudest, stage }, this.key, {
      algorithm: ALGORITHM,
      subject: userId,
      audience: ROOM_TOKEN.audience,
      issuer: ROOM_TOKEN.issuer,
      expiresIn: ROOM_TOKEN.ttlSeconds,
      jwtid: randomUUID(),
    });
  }
}
