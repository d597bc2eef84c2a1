/**
 * /api/health and /api/health/live: the process runs (liveness; nothing is queried, so a slow
 * database never gets a healthy process restarted). /api/health/ready: it can serve requests
 * (readiness; 503 naming what is not ready).
 */
import Router from '@koa/router';
import { ROUTES } from '@voice/protocol';
import type { Middleware } from 'koa';
import type { Readiness } from './Readiness.ts';

export function healthRoutes(readiness: Readiness): Router {
  const router = new Router();

  const live: Middleware = (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { ok: true };
  };
  router.get(ROUTES.health, live);
  router.get(ROUTES.healthLive, live);

  router.get(ROUTES.healthReady, async (ctx) => {
    const answer = await readiness.check();
    ctx.set('Cache-Control', 'no-store');
    ctx.status = answer.ok ? 200 : 503;
    ctx.body = answer;
  });

  return router;
}
