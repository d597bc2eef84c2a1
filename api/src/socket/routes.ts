/** /api/socket/*: what a tab needs before it opens the app socket. */

import Router from '@koa/router';
import { SOCKET_ROUTES, type SocketTicketResponse } from '@voice/protocol';
import type { Middleware } from 'koa';
import { LIMITS, perUserLimit, type RateLimiter } from '../http/RateLimiter.ts';
import type { AuthState } from '../http/requireAuth.ts';
import type { SocketTickets } from './SocketTickets.ts';

export function socketRoutes(
  tickets: SocketTickets,
  limiter: RateLimiter,
  requireAuth: Middleware<AuthState>,
) {
  const router = new Router<AuthState>();

  router.post(
    SOCKET_ROUTES.ticket,
    requireAuth,
    perUserLimit(limiter, LIMITS.socketTicketsPerUser),
    async (ctx) => {
      const { user, sessionId } = ctx.state;
      const body: SocketTicketResponse = await tickets.issue({ userId: user.id, sessionId });
      // Good for one handshake: no cache on the way may keep it.
      ctx.set('Cache-Control', 'no-store');
      ctx.body = body;
    },
  );

  return router;
}
