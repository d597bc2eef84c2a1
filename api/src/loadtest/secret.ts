/** The LOADTEST_SECRET check in front of every /api/loadtest route. */
import { createHash, timingSafeEqual } from 'node:crypto';
import { LOADTEST_SECRET_HEADER } from '@voice/protocol';
import type { Middleware } from 'koa';
import { AppError } from '../errors.ts';

/** SHA-256 of a value: equal lengths for timingSafeEqual, whatever length was sent. */
const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Lets through only requests carrying `secret` in the X-Loadtest-Secret header: 403 for the rest. */
export function requireLoadtestSecret(secret: string): Middleware {
  const expected = digest(secret);
  return async (ctx, next) => {
    const sent = ctx.get(LOADTEST_SECRET_HEADER);
    // Compared in constant time, so the answer's timing says nothing of how much of it was right.
    if (!timingSafeEqual(digest(sent), expected)) {
      throw new AppError('FORBIDDEN', undefined, 'Invalid load-test secret');
    }
    await next();
  };
}
