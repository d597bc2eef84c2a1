/** Bearer-token authentication for REST routes. */
import type { Middleware } from 'koa';
import { AppError } from '../errors.ts';

/** Someone with an id: what every authenticated route needs to know of the person. */
export interface Person {
  id: string;
}

/** What an authenticated route finds in ctx.state: the session's person (a user row) and the session. */
export interface AuthState<User extends Person = Person> {
  user: User;
  sessionId: string;
}

/** Whose session a token is (auth/Sessions.ts): null for anything not a live session. */
export interface SessionCheck<User extends Person> {
  /** The session when it is known without a query, else null. */
  known(token: string): AuthState<User> | undefined;
  authenticate(token: string): Promise<AuthState<User> | null>;
}

export function bearerToken(header: string | undefined): string | null {
  const match = header?.match(/^Bearer\s+(\S+)$/i);
  return match?.[1] ?? null;
}

export function requireAuth<User extends Person>(sessions: SessionCheck<User>): Middleware<AuthState<User>> {
  return async (ctx, next) => {
    const token = bearerToken(ctx.get('authorization') || undefined);
    // A session the cache vouches for costs no await.
    const session = token ? (sessions.known(token) ?? (await sessions.authenticate(token))) : null;
    if (!session) throw new AppError('UNAUTHORIZED');
    ctx.state.user = session.user;
    ctx.state.sessionId = session.sessionId;
    await next();
  };
}
