/** /api/webrtc/*: what a browser needs to open a peer connection. */

import Router from '@koa/router';
import { type TurnCredentialsResponse, WEBRTC_ROUTES } from '@voice/protocol';
import type { Middleware } from 'koa';
import { LIMITS, perUserLimit, type RateLimiter } from '../http/RateLimiter.ts';
import type { AuthState } from '../http/requireAuth.ts';
import type { TurnCredentials } from './TurnCredentials.ts';

export function webrtcRoutes(
  turn: TurnCredentials,
  limiter: RateLimiter,
  requireAuth: Middleware<AuthState>,
) {
  const router = new Router<AuthState>();

  router.get(
    WEBRTC_ROUTES.turnCredentials,
    requireAuth,
    perUserLimit(limiter, LIMITS.turnCredentialsPerUser),
    (ctx) => {
      // A credential is personal and short-lived: no cache on the way may keep it.
      ctx.set('Cache-Control', 'no-store');
      ctx.body = turn.issue(ctx.state.user.id) satisfies TurnCredentialsResponse;
    },
  );

  return router;
}
