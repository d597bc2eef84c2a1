/**
 * /api/loadtest: seed and cleanup, each behind the LOADTEST_SECRET header. Only mounted when
 * the secret is set (wire.ts); each route is secret → validate → handler.
 */
import Router from '@koa/router';
import { type CleanupResponse, LOADTEST_ROUTES, type SeedResponse } from '@voice/protocol';
import { validate } from '../http/validate.ts';
import type { LoadtestService } from './LoadtestService.ts';
import { cleanupSchema, seedSchema } from './schema.ts';
import { requireLoadtestSecret } from './secret.ts';

export function loadtestRoutes(service: LoadtestService, secret: string) {
  const router = new Router();
  const allowed = requireLoadtestSecret(secret);

  router.post(LOADTEST_ROUTES.seed, allowed, async (ctx) => {
    const body = validate(seedSchema, ctx.request.body);
    ctx.body = { accounts: await service.seed(body) } satisfies SeedResponse;
  });

  router.post(LOADTEST_ROUTES.cleanup, allowed, async (ctx) => {
    const { prefix } = validate(cleanupSchema, ctx.request.body);
    ctx.body = { removed: await service.cleanup(prefix) } satisfies CleanupResponse;
  });

  return router;
}
