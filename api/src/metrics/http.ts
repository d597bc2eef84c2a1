/**
 * The Koa side of metrics: every request counted and timed by the router's route pattern, and
 * GET /metrics on the app's own port for a scraper holding METRICS_TOKEN.
 */
import type { RouterContext } from '@koa/router';
import { bearerMatches } from '@voice/media-server';
import type { Context, Middleware } from 'koa';
import { AppError } from '../errors.ts';
import { type AppMetrics, UNMATCHED_ROUTE } from './AppMetrics.ts';

/** Where the app's port serves metrics when METRICS_TOKEN is set. */
export const METRICS_PATH = '/metrics';

// The API's catch-all that answers unknown /api paths with 404: a pattern, but not a route.
const CATCH_ALL = /\{\*\w+\}$/;

/** Counts and times every request; first in the chain, so it sees the status the client gets. */
export function httpMetrics(metrics: AppMetrics): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    let failed = false;
    try {
      await next();
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // An error that got past the error handler becomes Koa's 500.
      metrics.request(ctx.method, routeOf(ctx), failed ? 500 : ctx.status, seconds);
    }
  };
}

/** The matched route's pattern (`/api/users/:id`), never the path with its ids. */
function routeOf(ctx: Context): string {
  const matched = (ctx as Context & Pick<RouterContext, '_matchedRoute'>)._matchedRoute;
  if (matched !== undefined && !CATCH_ALL.test(String(matched))) return String(matched);
  return ctx.path === METRICS_PATH ? METRICS_PATH : UNMATCHED_ROUTE;
}

/**
 * GET /metrics for a bearer of `token` (compared in constant time); 401 without it or with a
 * wrong one, 404 when no token is configured (metrics are then on METRICS_PORT or nowhere).
 */
export function metricsEndpoint(metrics: AppMetrics, token: string | null): Middleware {
  return async (ctx, next) => {
    if (ctx.path !== METRICS_PATH) return next();
    if (token === null || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) throw new AppError('NOT_FOUND');
    if (!bearerMatches(ctx.get('authorization'), token)) {
      ctx.set('WWW-Authenticate', 'Bearer');
      throw new AppError('UNAUTHORIZED');
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  };
}
