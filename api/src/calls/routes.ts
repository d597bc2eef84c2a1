/** /api/calls: the signed-in person's call history. */
import Router from '@koa/router';
import { CALL_HISTORY, CALL_ROUTES, type CallHistoryResponse } from '@voice/protocol';
import type { Middleware } from 'koa';
import { z } from 'zod';
import type { AuthState } from '../http/requireAuth.ts';
import { validate } from '../http/validate.ts';
import type { CallHistoryRepository } from './CallHistoryRepository.ts';

const LIMIT_MESSAGE = `Must be a whole number from 1 to ${CALL_HISTORY.maxLimit}`;

const historyQuerySchema = z.strictObject({
  limit: z
    .string({ error: LIMIT_MESSAGE })
    .regex(/^\d{1,3}$/, LIMIT_MESSAGE)
    .transform(Number)
    .pipe(z.number().min(1, LIMIT_MESSAGE).max(CALL_HISTORY.maxLimit, LIMIT_MESSAGE))
    .default(CALL_HISTORY.defaultLimit),
  before: z.iso
    .datetime({ offset: true, error: 'Must be an ISO date-time' })
    .transform((value) => new Date(value))
    .optional(),
});

export function callRoutes(history: CallHistoryRepository, requireAuth: Middleware<AuthState>) {
  const router = new Router<AuthState>();

  router.get(CALL_ROUTES.history, requireAuth, async (ctx) => {
    const { limit, before } = validate(historyQuerySchema, ctx.query);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      calls: await history.list(ctx.state.user.id, { limit, before }),
    } satisfies CallHistoryResponse;
  });

  return router;
}
