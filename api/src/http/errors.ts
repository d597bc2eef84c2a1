/** Turns every failure into `{error: {code, message, field?}}` with the right status. */
import type { ErrorBody, ErrorCode } from '@voice/protocol';
import { ERRORS } from '@voice/protocol';
import type { Middleware } from 'koa';
import { databaseUnavailable } from '../db/unavailable.ts';
import { AppError, RateLimitedError } from '../errors.ts';
import type { Logger } from '../logger.ts';

/** Maps errors thrown by koa-body and Koa itself to our codes. */
function fromHttpError(error: { status?: number; type?: string }): ErrorCode | null {
  switch (error.status) {
    case 400:
      return 'INVALID_JSON';
    case 401:
      return 'UNAUTHORIZED';
    case 403:
      return 'FORBIDDEN';
    case 404:
      return 'NOT_FOUND';
    case 413:
      return 'PAYLOAD_TOO_LARGE';
    case 415:
      return 'UNSUPPORTED_MEDIA_TYPE';
    default:
      return null;
  }
}

// A lock or an overload that outlasted the query deadline usually clears within seconds; a
// client that retries sooner only adds to it.
const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

export function errorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      let code: ErrorCode;
      let field: string | undefined;
      let message: string;
      if (error instanceof AppError) {
        code = error.code;
        field = error.field;
        message = error.message;
        if (error instanceof RateLimitedError) ctx.set('Retry-After', String(error.retryAfterSeconds));
      } else if (databaseUnavailable(error)) {
        // Past its deadline or without a connection, the statement changed nothing: try again.
        code = 'SERVICE_UNAVAILABLE';
        message = ERRORS[code].message;
        // The route's pattern, not its path: a path may carry a reset token.
        const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
        const { code: reason, message: detail } = error as { code?: string; message?: string };
        logger.warn('database did not answer in time', { method: ctx.method, route, reason, detail });
      } else {
        code = fromHttpError(error as { status?: number }) ?? 'INTERNAL';
        message = ERRORS[code].message;
        if (code === 'INTERNAL') logger.error('unhandled error', { method: ctx.method, error });
      }
      const body: ErrorBody = { error: { code, message, ...(field ? { field } : {}) } };
      ctx.status = ERRORS[code].status;
      // Every 503 (database, Redis, no media server) passes: say when to ask again.
      if (ctx.status === 503 && !ctx.response.get('Retry-After'))
        ctx.set('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
      ctx.body = body;
    }
  };
}
