/** The Koa application: middleware order and the routers. */

import Router from '@koa/router';
import Koa from 'koa';
import { authRoutes } from './auth/routes.ts';
import { avatarFiles } from './avatars/serve.ts';
import { callRoutes } from './calls/routes.ts';
import { friendRoutes } from './friends/routes.ts';
import { healthRoutes } from './health/routes.ts';
import { accessLog } from './http/accessLog.ts';
import { compression } from './http/compression.ts';
import { errorHandler } from './http/errors.ts';
import { jsonBody } from './http/jsonBody.ts';
import { type AuthState, type Person, requireAuth } from './http/requireAuth.ts';
import { securityHeaders } from './http/security.ts';
import { staticWeb } from './http/staticWeb.ts';
import { LegalTexts } from './legal/LegalTexts.ts';
import { legalRoutes } from './legal/routes.ts';
import { httpMetrics, metricsEndpoint } from './metrics/http.ts';
import { notificationRoutes } from './notifications/routes.ts';
import { roomRoutes } from './rooms/routes.ts';
import type { Services } from './services.ts';
import { userRoutes } from './users/routes.ts';
import { webrtcRoutes } from './webrtc/routes.ts';
import { TurnCredentials } from './webrtc/TurnCredentials.ts';

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
  const auth = requireAuth<Person>(services.sessions);

  // Each feature's routes join this router. Not their allowedMethods() too: each would be a
  // layer matching every /api path, run or at least composed on every request (the catch-all
  // below answers unknown methods and paths alike, with 404).
  const api = new Router<AuthState>({ prefix: '/api' });
  const healthRouter = healthRoutes(services.readiness);
  api.use(healthRouter.routes());
  const authRouter = authRoutes(services.auth, services.limiter);
  api.use(authRouter.routes());
  const legalRouter = legalRoutes(new LegalTexts({ dataDir: config.dataDir, logger }));
  api.use(legalRouter.routes());
  // Before any /users/:id route, so /users/friends is never taken for an id.
  const friendRouter = friendRoutes(services.friends, services.limiter, auth);
  api.use(friendRouter.routes());
  const userRouter = userRoutes({ ...services, requireAuth: auth });
  api.use(userRouter.routes());
  const callRouter = callRoutes(services.callHistory, auth);
  api.use(callRouter.routes());
  const roomRouter = roomRoutes(services.rooms, services.limiter, auth);
  api.use(roomRouter.routes());
  const turn = new TurnCredentials({
    turn: config.turn,
    ttlSeconds: config.turnTtlSeconds,
    stunUrls: config.stunUrls,
  });
  const webrtcRouter = webrtcRoutes(turn, services.limiter, auth);
  api.use(webrtcRouter.routes());
  const { webPush } = services;
  const notificationRouter = notificationRoutes({
    publicKey: webPush.publicKey,
    endpoints: webPush.endpoints,
    subscriptions: webPush.subscriptions,
    pushes: webPush.notifications,
    limiter: services.limiter,
    requireAuth: auth,
  });
  api.use(notificationRouter.routes());
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
    .use(api.allowedMethods())
    .use(avatarFiles(services.avatars.store))
    .use(staticWeb(config.webDist));
  return app;
}
