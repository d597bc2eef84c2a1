/**
 * Room tokens: the API's word that a user may enter a room (protocol's RoomTokenClaims).
 * The media server trusts nothing else about who connects to `/rtc`.
 */
import { RedisUnavailableError } from '@voice/bus';
import { FORWARDING, ROOM_TOKEN, type RoomTokenClaims } from '@voice/protocol';
import jwt from 'jsonwebtoken';
import { z } from 'zod';
import type { RtcAuthenticator } from './RtcServer.ts';
import type { SpentRoomTokens } from './spentRoomTokens.ts';
import type { Logger } from './types.ts';

const id = z.string().min(1).max(200);

const claimsSchema = z.object({
  sub: id,
  roomId: id,
  displayName: z.string().min(1).max(200),
  avatarUrl: z.string().max(2000).nullable(),
  // A token from an API before moderators names no moderator.
  permissions: z.object({ admin: z.boolean(), moderator: z.boolean().default(false) }),
  // A token from an API before loudest-K forwarding names no K.
  loudest: z
    .number()
    .int()
    .min(FORWARDING.loudestMin)
    .max(FORWARDING.loudestMax)
    .default(FORWARDING.loudestDefault),
  // A token from an API before stage rooms names no stage.
  stage: z.boolean().default(false),
  jti: id,
  aud: z.literal(ROOM_TOKEN.audience),
  iss: z.literal(ROOM_TOKEN.issuer),
  iat: z.number().int(),
  exp: z.number().int(),
});

/** The room and person a connection says it is for. */
export interface RoomTokenFor {
  roomId: string;
  peerId: string;
}

/**
 * Checks a room token against the room and person it is presented for: its claims when it is
 * valid, names them, and is seen for the first time; else null.
 */
export type RoomTokenVerifier = (token: string, presentedFor: RoomTokenFor) => RoomTokenClaims | null;

/**
 * A verifier of HS256 room tokens signed with `secret`. Each token is accepted once: its `jti` is
 * remembered until the token expires (after that the signature check refuses it anyway), so a
 * token copied from a URL or a log cannot open a second connection. Only an accepted token is
 * spent: one presented for the wrong room or person stays good for its own.
 */
export function roomTokenVerifier(secret: Buffer | string, now: () => number = Date.now): RoomTokenVerifier {
  // jti → expiry (ms). Tokens share one lifetime, so insertion order is nearly expiry order and
  // pruning from the front stays cheap.
  const used = new Map<string, number>();
  const prune = (at: number) => {
    for (const [jti, expiresAt] of used) {
      if (expiresAt > at) break;
      used.delete(jti);
    }
  };

  return (token, presentedFor) => {
    const at = now();
    prune(at);
    let payload: unknown;
    try {
      payload = jwt.verify(token, secret, {
        algorithms: ['HS256'],
        audience: ROOM_TOKEN.audience,
        issuer: ROOM_TOKEN.issuer,
        clockTimestamp: Math.floor(at / 1000),
      });
    } catch {
      return null;
    }
    const parsed = claimsSchema.safeParse(payload);
    if (!parsed.success || used.has(parsed.data.jti)) return null;
    if (parsed.data.roomId !== presentedFor.roomId || parsed.data.sub !== presentedFor.peerId) return null;
    used.set(parsed.data.jti, parsed.data.exp * 1000);
    return parsed.data;
  };
}

/** Where spent tokens are also recorded, beyond the verifier's memory, and where to say it failed. */
export interface SharedSpending {
  spent: SpentRoomTokens;
  logger: Logger;
}

/**
 * Admits a connection to `/rtc?roomId=…&peerId=…&token=…` when the token is valid and unused
 * and names that room and that person. With `shared`, unused also means not spent before a
 * restart of this media server; while Redis does not answer, this process's memory decides.
 */
export function roomTokenAuthenticator(verify: RoomTokenVerifier, shared?: SharedSpending): RtcAuthenticator {
  return async (url) => {
    const roomId = url.searchParams.get('roomId');
    const peerId = url.searchParams.get('peerId');
    const token = url.searchParams.get('token');
    if (!roomId || !peerId || !token) return null;
    const claims = verify(token, { roomId, peerId });
    if (!claims) return null;
    if (shared && !(await spentFirstTime(shared, claims))) return null;
    const { displayName, avatarUrl, permissions, loudest, stage } = claims;
    const { admin, moderator } = permissions;
    return { peerId, roomId, displayName, avatarUrl, admin, moderator, loudest, stage };
  };
}

/** True unless the shared record says `claims`' token was spent before; true too when it cannot say. */
async function spentFirstTime({ spent, logger }: SharedSpending, claims: RoomTokenClaims): Promise<boolean> {
  try {
    return await spent.spend(claims.jti, claims.exp * 1000);
  } catch (error) {
    if (!(error instanceof RedisUnavailableError)) throw error;
    logger.warn('room tokens: Redis did not answer; this process alone remembers the tokens it spent');
    return true;
  }
}
