/** /api/users/* for search, friends and friend requests. */

import Router from '@koa/router';
import type {
  FriendRequestsResponse,
  FriendsResponse,
  OkResponse,
  SearchResponse,
  SendFriendRequestResponse,
} from '@voice/protocol';
import type { Middleware } from 'koa';
import { z } from 'zod';
import type { AuthState } from '../http/authenticate.ts';
import { LIMITS, type Limit, type RateLimiter } from '../http/RateLimiter.ts';
import { validate } from '../http/validate.ts';
import type { FriendService } from './FriendService.ts';
import { searchSchema, userIdBodySchema, userIdSchema } from './schema.ts';

export function friendRoutes(
  friends: FriendService,
  limiter: RateLimiter,
  requireAuth: Middleware<AuthState>,
) {
  const router = new Router<AuthState>({ prefix: '/users' });
  router.use(requireAuth);
  const perUser =
    (limit: Limit): Middleware<AuthState> =>
    async (ctx, next) => {
      await limiter.consume(limit, ctx.state.user.id);
      await next();
    };

  router.post('/search', perUser(LIMITS.searchPerUser), async (ctx) => {
    const { searchTerm } = validate(searchSchema, ctx.request.body);
    ctx.body = { users: await friends.search(ctx.state.user.id, searchTerm) } satisfies SearchResponse;
  });

  router.get('/friends', async (ctx) => {
    ctx.body = { friends: await friends.listFriends(ctx.state.user.id) } satisfies FriendsResponse;
  });

  // The same list: every friend already carries isInCall.
  router.get('/friends-with-call-status', async (ctx) => {
    ctx.body = { friends: await friends.listFriends(ctx.state.user.id) } satisfies FriendsResponse;
  });

  router.get('/friend-requests', async (ctx) => {
    ctx.body = { requests: await friends.listRequests(ctx.state.user.id) } satisfies FriendRequestsResponse;
  });

  router.post('/friend-request', perUser(LIMITS.friendRequestsPerUser), async (ctx) => {
    const { userId } = validate(userIdBodySchema, ctx.request.body);
    ctx.body = {
      status: await friends.sendRequest(ctx.state.user.id, userId),
    } satisfies SendFriendRequestResponse;
  });

  router.post('/friend-request/accept', async (ctx) => {
    const { userId } = validate(userIdBodySchema, ctx.request.body);
    await friends.accept(ctx.state.user.id, userId);
    ctx.body = { ok: true } satisfies OkResponse;
  });

  router.post('/friend-request/reject', async (ctx) => {
    const { userId } = validate(userIdBodySchema, ctx.request.body);
    await friends.reject(ctx.state.user.id, userId);
    ctx.body = { ok: true } satisfies OkResponse;
  });

  router.delete('/friend/:id', async (ctx) => {
    const { id } = validate(z.object({ id: userIdSchema }), ctx.params);
    await friends.unfriend(ctx.state.user.id, id);
    ctx.body = { ok: true } satisfies OkResponse;
  });

  return router;
}
