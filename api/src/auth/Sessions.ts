/**
 * Session tokens: a JWT (HS256 only, with expiry) whose `jti` names a row in
 * `sessions`. Logging out deletes the row; a password reset deletes them all, so
 * a token stops working at once even though it has not expired. With a SessionCache,
 * a session verified once is trusted from memory until it ends or its person changes.
 */
import { createSecretKey, type KeyObject, randomUUID } from 'node:crypto';
import { SESSION_TTL_SECONDS } from '@voice/protocol';
import jwt from 'jsonwebtoken';
import type { Db } from '../db/index.ts';
import { isUuid } from '../http/schemas.ts';
import type { UserRow } from '../users/UserRepository.ts';
import type { AuthenticatedSession, SessionCache, SessionClaims } from './SessionCache.ts';

export type { AuthenticatedSession } from './SessionCache.ts';

const ALGORITHM = 'HS256';
const AUTHENTICATE_SQL = `SELECT users.* FROM users JOIN sessions ON sessions.user_id = users.id
  WHERE sessions.id = ? AND users.id = ? AND sessions.expires_at > now() LIMIT 1`;
// The session row alone, for a session known by id (a socket ticket's): still there, unexpired, its person too.
const LIVE_SESSION_SQL = `SELECT sessions.expires_at FROM sessions JOIN users ON users.id = sessions.user_id
  WHERE sessions.id = ? AND users.id = ? AND sessions.expires_at > now() LIMIT 1`;
const AUDIENCE = 'app';

export class Sessions {
  // A KeyObject made once: given a string, jsonwebtoken re-derives a key on every call (costly).
  readonly #key: KeyObject;

  readonly #cache: SessionCache | null;

  constructor(
    readonly db: Db,
    secret: string,
    readonly ttlSeconds = SESSION_TTL_SECONDS,
    cache: SessionCache | null = null,
  ) {
    this.#key = createSecretKey(Buffer.from(secret, 'utf8'));
    this.#cache = cache;
  }

  /** Opens a session for `userId` and returns its token; pass a transaction to make it part of a larger change. */
  async issue(userId: string, trx: Db = this.db): Promise<string> {
    const [token] = await this.issueMany([userId], trx);
    return token as string;
  }

  /** Opens one session for each of `userIds` in one insert; their tokens, in the same order. */
  async issueMany(userIds: readonly string[], trx: Db = this.db): Promise<string[]> {
    if (userIds.length === 0) return [];
    const expiresAt = new Date(Date.now() + this.ttlSeconds * 1000);
    const rows = userIds.map((userId) => ({ id: randomUUID(), user_id: userId, expires_at: expiresAt }));
    await trx('sessions').insert(rows);
    return rows.map(({ id, user_id }) =>
      jwt.sign({}, this.#key, {
        algorithm: ALGORITHM,
        subject: user_id,
        jwtid: id,
        audience: AUDIENCE,
        expiresIn: this.ttlSeconds,
      }),
    );
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

  /**
   * The user behind a live session token, or null. From the cache when it knows the session,
   * else one query: session and user together.
   */
  async authenticate(token: string): Promise<AuthenticatedSession | null> {
    const known = this.known(token);
    if (known) return known;
    const cache = this.#cache;
    const claims = cache?.claims(token) ?? this.verify(token);
    if (!claims) return null;
    const ticket = cache?.ticket();
    // Raw SQL: this runs on every authenticated request, and building it each time costs more than the query.
    const { rows } = (await this.db.raw(AUTHENTICATE_SQL, [claims.jti, claims.sub])) as { rows: UserRow[] };
    const user = rows[0];
    if (!user) return null;
    if (cache && ticket !== undefined) cache.remember(token, claims, user, ticket);
    return { user, sessionId: claims.jti, expiresAt: new Date(claims.exp * 1000) };
  }

  /** The live session of `token` if the cache vouches for it, at no cost; else undefined (ask `authenticate`). */
  known(token: string): AuthenticatedSession | undefined {
    return this.#cache?.session(token);
  }

  /** When session `sessionId` of `userId` ends, if it still lives; always asks the database. */
  async liveSession(sessionId: string, userId: string): Promise<{ expiresAt: Date } | null> {
    if (!isUuid(sessionId) || !isUuid(userId)) return null;
    const { rows } = (await this.db.raw(LIVE_SESSION_SQL, [sessionId, userId])) as {
      rows: Array<{ expires_at: Date }>;
    };
    const row = rows[0];
    return row ? { expiresAt: new Date(row.expires_at) } : null;
  }

  async revoke(sessionId: string): Promise<void> {
    await this.db('sessions').where({ id: sessionId }).delete();
    await this.#cache?.sessionEnded(sessionId);
  }

  /**
   * Ends every session of `userId`. Pass a transaction to make it part of a larger change;
   * then call `userChanged` once it has committed (before, another request could verify a
   * session again from the rows still there).
   */
  async revokeAll(userId: string, trx: Db = this.db): Promise<void> {
    await trx('sessions').where({ user_id: userId }).delete();
    if (trx === this.db) await this.userChanged(userId);
  }

  /** The person's row changed, or their sessions ended: every process asks the database again. */
  async userChanged(userId: string): Promise<void> {
    await this.#cache?.userChanged(userId);
  }
}
