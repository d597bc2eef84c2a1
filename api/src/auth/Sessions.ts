/**
 * Session tokens: a JWT (HS256 only, with expiry) whose `jti` names a row in
 * `sessions`. Logging out deletes the row; a password reset deletes them all, so
 * a token stops working at once even though it has not expired.
 */
import { createSecretKey, type KeyObject, randomUUID } from 'node:crypto';
import { SESSION_TTL_SECONDS } from '@voice/protocol';
import jwt from 'jsonwebtoken';
import type { Db } from '../db/index.ts';
import { isUuid } from '../http/schemas.ts';
import type { UserRow } from '../users/UserRepository.ts';

const ALGORITHM = 'HS256';
const AUTHENTICATE_SQL = `SELECT users.* FROM users JOIN sessions ON sessions.user_id = users.id
  WHERE sessions.id = ? AND users.id = ? AND sessions.expires_at > now() LIMIT 1`;
const AUDIENCE = 'app';

interface SessionClaims {
  sub: string;
  jti: string;
  /** Expiry, in seconds since the epoch. */
  exp?: number;
}

/** A live session and its user. */
export interface AuthenticatedSession {
  user: UserRow;
  sessionId: string;
  /** When the token stops working (open sockets close then); null if it has no expiry. */
  expiresAt: Date | null;
}

export class Sessions {
  // A KeyObject made once: given a string, jsonwebtoken re-derives a key on every call (costly).
  readonly #key: KeyObject;

  constructor(
    readonly db: Db,
    secret: string,
    readonly ttlSeconds = SESSION_TTL_SECONDS,
  ) {
    this.#key = createSecretKey(Buffer.from(secret, 'utf8'));
  }

  /** Opens a session for `userId` and returns its token; pass a transaction to make it part of a larger change. */
  async issue(userId: string, trx: Db = this.db): Promise<string> {
    const id = randomUUID();
    const expiresAt = new Date(Date.now() + this.ttlSeconds * 1000);
    await trx('sessions').insert({ id, user_id: userId, expires_at: expiresAt });
    return jwt.sign({}, this.#key, {
      algorithm: ALGORITHM,
      subject: userId,
      jwtid: id,
      audience: AUDIENCE,
      expiresIn: this.ttlSeconds,
    });
  }

  /** The verified claims of `token`, or null for anything forged, expired or malformed. */
  verify(token: string): SessionClaims | null {
    try {
      const claims = jwt.verify(token, this.#key, { algorithms: [ALGORITHM], audience: AUDIENCE });
      // jsonwebtoken accepts a token without `exp` as never expiring: ours always have one.
      // The ids go into a query on uuid columns, where anything else would be a server error.
      if (typeof claims === 'string' || typeof claims.exp !== 'number') return null;
      if (!isUuid(claims.sub) || !isUuid(claims.jti)) return null;
      return { sub: claims.sub.toLowerCase(), jti: claims.jti.toLowerCase(), exp: claims.exp };
    } catch {
      return null;
    }
  }

  /** The user behind a live session token, or null. One query: session and user together. */
  async authenticate(token: string): Promise<AuthenticatedSession | null> {
    const claims = this.verify(token);
    if (!claims) return null;
    // Raw SQL: this runs on every authenticated request, and building it each time costs more than the query.
    const { rows } = (await this.db.raw(AUTHENTICATE_SQL, [claims.jti, claims.sub])) as { rows: UserRow[] };
    const user = rows[0];
    if (!user) return null;
    return { user, sessionId: claims.jti, expiresAt: claims.exp ? new Date(claims.exp * 1000) : null };
  }

  async revoke(sessionId: string): Promise<void> {
    await this.db('sessions').where({ id: sessionId }).delete();
  }

  /** Ends every session of `userId`; pass a transaction to make it part of a larger change. */
  async revokeAll(userId: string, trx: Db = this.db): Promise<void> {
    await trx('sessions').where({ user_id: userId }).delete();
  }
}
