/**
 * Serves the built web app: files from web/dist, and index.html for every other
 * GET outside /api so the browser-history router can take the path. A file with a
 * precompressed copy beside it (`.br`, `.gz`, written by the build) is sent as that copy
 * when the browser accepts it. A page the build prerendered (the sign-in page, in every
 * language) is served for its path in the visitor's language (visitorLanguage.ts).
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Middleware } from 'koa';
import send from 'koa-send';
import { visitorLanguage } from './visitorLanguage.ts';

/** Hashed asset names never change content: cached for a year, never checked again. */
const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';
/** The page itself, prerendered or not, in any of its encodings. */
const PAGE_HTML = /(?:(?:^|[\\/])index|[\\/]prerendered[\\/][a-z-]+\.[a-z]{2})\.html(?:\.br|\.gz)?$/;
/** The paths whose page the build prerendered (web/build/prerender.ts), and the page's name. */
const PRERENDERED: Readonly<Record<string, string>> = { '/login': 'login' };

export function staticWeb(root: string): Middleware {
  const hasBuild = existsSync(path.join(root, 'index.html'));
  const prerenderedDir = path.join(root, 'prerendered');
  const prerenderedFiles = new Set(existsSync(prerenderedDir) ? readdirSync(prerenderedDir) : []);
  return async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.path.startsWith('/api')) return next();
    if (!hasBuild) {
      ctx.status = 503;
      ctx.type = 'text/plain';
      ctx.body = 'The web app is not built. Run `npm run build` (npm start does it for you).';
      return;
    }
    const immutable = ctx.path.startsWith('/assets/');
    // The answer depends on Accept-Encoding (a .br or .gz copy, or the file itself).
    ctx.vary('Accept-Encoding');
    let served: string | undefined;
    const prerendered = PRERENDERED[ctx.path];
    if (prerendered) {
      ctx.vary('Accept-Language');
      ctx.vary('Cookie');
      const file = `${prerendered}.${visitorLanguage(ctx)}.html`;
      if (prerenderedFiles.has(file))
        served = await send(ctx, `prerendered/${file}`, { root, brotli: true, gzip: true });
    }
    if (served === undefined)
      try {
        served = await send(ctx, ctx.path, {
          root,
          index: 'index.html',
          brotli: true,
          gzip: true,
        });
      } catch (error) {
        if ((error as { status?: number }).status !== 404) throw error;
        if (path.extname(ctx.path)) return next();
        served = await send(ctx, 'index.html', { root, brotli: true, gzip: true });
      }
    if (immutable) ctx.set('Cache-Control', ASSET_CACHE_CONTROL);
    // index.html names the current build's scripts: a browser must check it every time
    // (a 304 when nothing changed), or it would keep asking for a release's deleted assets.
    else if (PAGE_HTML.test(served)) ctx.set('Cache-Control', 'no-cache');
  };
}
