/** The Koa application: middleware order and the routers. */

import Router from '@koa/router';
import Koa from 'koa';
import { accessLog } from './http/accessLog.ts';
import { compression } from './http/compression.ts';
import { errorHandler } from './http/errors.ts';
import { jsonBody } from './http/jsonBody.ts';
import type { AuthState } from './http/requireAuth.ts';
import { securityHeaders } from './http/security.ts';
import { staticWeb } from './http/staticWeb.ts';
import { httpMetrics, metricsEndpoint } from './metrics/http.ts';
import type { Services } from './services.ts';

/** Errors of a response whose client closed the connection before it was all sent. */
const CLIENT_GONE = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE', 'ECONNABORTED']);

export function createApp(services: Services): Koa {
  const { config, logger } = services;
  const app = new Koa({ proxy: config.trustProxy });
  // In place of Koa's own printing: a browser that goes away while a file streams (a reload, a
  // closed tab) is no fault of ours; anything else is logged as the rest of the API logs.
  app.on(
    'error',
    (error: NodeJS.ErrnoException & { status?: number; expose?: boolean }, ctx?: Koa.Context) => {
      if (error.status === 404 || error.expose) return;
      if (error.code && CLIENT_GONE.has(error.code)) return;
      logger.error('request failed outside its handler', { path: ctx?.path, error });
    },
  );
  // Each feature's routes join this router, in the order createServices lists them. Not their
  // allowedMethods() too: each would be a layer matching every /api path, run or at least
  // composed on every request (the catch-all below answers unknown methods and paths alike, with 404).
  const api = new Router<AuthState>({ prefix: '/api' });
  for (const routes of services.routes) api.use(routes);
  // Unknown API paths answer with our error shape rather than the SPA.
  api.all('/{*rest}', () => {
    throw Object.assign(new Error('not found'), { status: 404 });
  });

  app
    .use(httpMetrics(services.metrics))
    .use(
      securityHeaders({
        publicUrl: config.publicUrl,
        // Media servers run apart are reached on origins of their own.
        mediaOrigins: config.mediaServer === 'external' ? () => services.mediaServers.origins() : undefined,
      }),
    )
    .use(compression())
    .use(accessLog(logger))
    .use(errorHandler(logger))
    .use(metricsEndpoint(services.metrics, config.metrics.token))
    .use(jsonBody())
    .use(api.routes())
    .use(api.allowedMethods());
  for (const files of services.files) app.use(files);
  app.use(staticWeb(config.webDist));
  return app;
}
