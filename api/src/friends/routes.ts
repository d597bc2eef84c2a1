/** /api/users/* for search, friends and friend requests. */

import Router from '@koa/router';
import {
  FRIEND_ROUTES,
  type FriendRequestsResponse,
  type FriendsResponse,
  type OkResponse,
  type SearchResponse,
  type SendFriendRequestResponse,
  type SentFriendRequestsResponse,
} from '@voice/protocol';
import type { Middleware } from 'koa';
import { LIMITS, type Limit, perUserLimit, type RateLimiter } from '../http/RateLimiter.ts';
import type { AuthState } from '../http/requireAuth.ts';
import { idParamsSchema } from '../http/schemas.ts';
import { validate } from '../http/validate.ts';
import type { FriendService } from './FriendService.ts';
import { searchSchema, userIdBodySchema } from './schema.ts';

export function friendRoutes(
  friends: FriendService,
  limiter: RateLimiter,
  requireAuth: Middleware<AuthState>,
) {
  const router = new Router<AuthState>();
  const perUser = (limit: Limit) => perUserLimit(limiter, limit);

  router.post(FRIEND_ROUTES.search, requireAuth, perUser(LIMITS.searchPerUser), async (ctx) => {
    const { searchTerm } = validate(searchSchema, ctx.request.body);
    ctx.body = { users: await friends.search(ctx.state.user.id, searchTerm) } satisfies SearchResponse;
  });

  router.get(FRIEND_ROUTES.friends, requireAuth, async (ctx) => {
    ctx.body = { friends: await friends.listFriends(ctx.state.user.id) } satisfies FriendsResponse;
  });

  // The same list: every friend already carries isInCall.
  router.get(FRIEND_ROUTES.friendsWithCallStatus, requireAuth, async (ctx) => {
    ctx.body = { friends: await friends.listFriends(ctx.state.user.id) } satisfies FriendsResponse;
  });

  router.get(FRIEND_ROUTES.requests, requireAuth, async (ctx) => {
    ctx.body = { requests: await friends.listRequests(ctx.state.user.id) } satisfies FriendRequestsResponse;
  });

  router.get(FRIEND_ROUTES.sentRequests, requireAuth, async (ctx) => {
    ctx.body = {
      requests: await friends.listSentRequests(ctx.state.user.id),
    } satisfies SentFriendRequestsResponse;
  });

  router.post(FRIEND_ROUTES.sendRequest, requireAuth, perUser(LIMITS.friendRequestsPerUser), async (ctx) => {
    const { userId } = validate(userIdBodySchema, ctx.request.body);
    ctx.body = {
      status: await friends.sendRequest(ctx.state.user.id, userId),
    } satisfies SendFriendRequestResponse;
  });

  router.post(FRIEND_ROUTES.accept, requireAuth, async (ctx) => {
    const { userId } = validate(userIdBodySchema, ctx.request.body);
    await friends.accept(ctx.state.user.id, userId);
    ctx.body = { ok: true } satisfies OkResponse;
  });

  router.post(FRIEND_ROUTES.reject, requireAuth, async (ctx) => {
    const { userId } = validate(userIdBodySchema, ctx.request.body);
    await friends.reject(ctx.state.user.id, userId);
    ctx.body = { ok: true } satisfies OkResponse;
  });

  // Withdraws our own pending request to the user :id.
  router.delete(FRIEND_ROUTES.cancel.pattern, requireAuth, async (ctx) => {
    const { id } = validate(idParamsSchema, ctx.params);
    await friends.cancel(ctx.state.user.id, id);
    ctx.body = { ok: true } satisfies OkResponse;
  });

  router.delete(FRIEND_ROUTES.unfriend.pattern, requireAuth, async (ctx) => {
    const { id } = validate(idParamsSchema, ctx.params);
    await friends.unfriend(ctx.state.user.id, id);
    ctx.body = { ok: true } satisfies OkResponse;
  });

  return router;
}
