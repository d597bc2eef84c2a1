/** The Koa application: middleware order and the routers. */

import Router from '@koa/router';
import { LIMITS as SPEC_LIMITS } from '@voice/protocol';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import { authRoutes } from '../auth/routes.ts';
import { avatarFiles } from '../avatars/serve.ts';
import { friendRoutes } from '../friends/routes.ts';
import type { Services } from '../services.ts';
import { userRoutes } from '../users/routes.ts';
import { accessLog } from './accessLog.ts';
import { type AuthState, requireAuth } from './authenticate.ts';
import { errorHandler } from './errors.ts';
import { securityHeaders } from './security.ts';
import { staticWeb } from './staticWeb.ts';

export function createApp(services: Services): Koa {
  const { config, logger } = services;
  const app = new Koa({ proxy: config.trustProxy });
  const auth = requireAuth(services.sessions);

  const api = new Router<AuthState>({ prefix: '/api' });
  api.get('/health', (ctx) => {
    ctx.body = { ok: true };
  });
  const authRouter = authRoutes(services.auth, services.limiter, auth);
  api.use(authRouter.routes(), authRouter.allowedMethods());
  // Before any /users/:id route, so /users/friends is never taken for an id.
  const friendRouter = friendRoutes(services.friends, services.limiter, auth);
  api.use(friendRouter.routes(), friendRouter.allowedMethods());
  const userRouter = userRoutes({ ...services, requireAuth: auth });
  api.use(userRouter.routes(), userRouter.allowedMethods());
  // Unknown API paths answer with our error shape rather than the SPA.
  api.all('/{*rest}', () => {
    throw Object.assign(new Error('not found'), { status: 404 });
  });

  app
    .use(securityHeaders())
    .use(accessLog(logger))
    .use(errorHandler(logger))
    .use(
      koaBody({
        json: true,
        urlencoded: false,
        text: false,
        multipart: false,
        jsonLimit: `${SPEC_LIMITS.jsonBodyMaxBytes}b`,
        // Without strict a JSON body could be a bare string or number.
        jsonStrict: true,
      }),
    )
    .use(api.routes())
    .use(api.allowedMethods())
    .use(avatarFiles(services.avatars.store))
    .use(staticWeb(config.webDist));
  return app;
}
