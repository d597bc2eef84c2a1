/**
 * Serves the built web app: files from web/dist, and index.html for every other
 * GET outside /api so the browser-history router can take the path.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Middleware } from 'koa';
import send from 'koa-send';

export function staticWeb(root: string): Middleware {
  const hasBuild = existsSync(path.join(root, 'index.html'));
  return async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.path.startsWith('/api')) return next();
    if (!hasBuild) {
      ctx.status = 503;
      ctx.type = 'text/plain';
      ctx.body = 'The web app is not built. Run `npm run build` (npm start does it for you).';
      return;
    }
    // Hashed asset names never change content: cache them for a year.
    const immutable = ctx.path.startsWith('/assets/');
    try {
      await send(ctx, ctx.path, {
        root,
        index: 'index.html',
        maxage: immutable ? 365 * 24 * 3600 * 1000 : 0,
        immutable,
      });
    } catch (error) {
      if ((error as { status?: number }).status !== 404) throw error;
      if (path.extname(ctx.path)) return next();
      await send(ctx, 'index.html', { root });
      ctx.set('Cache-Control', 'no-cache');
    }
  };
}
