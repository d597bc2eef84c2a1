/** One log line per request, with anything secret cut out of the path. */
import type { Middleware } from 'koa';
import type { Logger } from '../logger.ts';

// Reset tokens travel in the path; query strings may carry anything.
const SECRET_PATH = /(\/verify-reset-token\/)[^/?]+/;

export function accessLog(logger: Logger): Middleware {
  // Without debug lines nothing is written, and timing and building one on every request would cost.
  if (logger.enabled?.('debug') === false) return (_ctx, next) => next();
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const ms = (performance.now() - started).toFixed(1);
      logger.debug(`${ctx.method} ${ctx.path.replace(SECRET_PATH, '$1[redacted]')} ${ctx.status} ${ms}ms`);
    }
  };
}
