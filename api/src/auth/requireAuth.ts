/** Bearer-token authentication for REST routes. */
import type { Middleware } from 'koa';
import { AppError } from '../errors.ts';
import type { UserRow } from '../users/UserRepository.ts';
import type { Sessions } from './Sessions.ts';

/** What an authenticated route finds in ctx.state. */
export interface AuthState {
  user: UserRow;
  sessionId: string;
}

export function bearerToken(header: string | undefined): string | null {
  const match = header?.match(/^Bearer\s+(\S+)$/i);
  return match?.[1] ?? null;
}

export function requireAuth(sessions: Sessions): Middleware<AuthState> {
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
