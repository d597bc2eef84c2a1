/** /api/rooms: group rooms, joining them, and room invitations. */
import Router from '@koa/router';
import {
  type InviteResponse,
  type JoinRoomResponse,
  ROOM_ROUTES,
  type RoomInvitationsResponse,
  type RoomResponse,
  type RoomsResponse,
} from '@voice/protocol';
import type { Middleware } from 'koa';
import { LIMITS, type Limit, perUserLimit, type RateLimiter } from '../http/RateLimiter.ts';
import type { AuthState } from '../http/requireAuth.ts';
import { validate } from '../http/validate.ts';
import type { RoomService } from './RoomService.ts';
import {
  createRoomSchema,
  idParamsSchema,
  inviteSchema,
  joinRoomSchema,
  listQuerySchema,
  moderatorParamsSchema,
  updateRoomSchema,
  validateRoomBody,
} from './schema.ts';

export function roomRoutes(rooms: RoomService, limiter: RateLimiter, requireAuth: Middleware<AuthState>) {
  const router = new Router<AuthState>();
  const perUser = (limit: Limit) => perUserLimit(limiter, limit);

  router.post(ROOM_ROUTES.rooms, requireAuth, perUser(LIMITS.roomCreatePerUser), async (ctx) => {
    const body = validateRoomBody(createRoomSchema, ctx.request.body);
    ctx.status = 201;
    ctx.body = { room: await rooms.create(ctx.state.user.id, body) } satisfies RoomResponse;
  });

  router.get(ROOM_ROUTES.rooms, requireAuth, async (ctx) => {
    const { query } = validate(listQuerySchema, ctx.query);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { rooms: await rooms.list(ctx.state.user.id, query || undefined) } satisfies RoomsResponse;
  });

  // Before ROOM_ROUTES.room, so "invitations" is never taken for a room id.
  router.get(ROOM_ROUTES.invitations, requireAuth, async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { invitations: await rooms.invitations(ctx.state.user.id) } satisfies RoomInvitationsResponse;
  });

  router.post(
    ROOM_ROUTES.acceptInvitation.pattern,
    requireAuth,
    perUser(LIMITS.roomJoinPerUser),
    async (ctx) => {
      const { id } = validate(idParamsSchema, ctx.params);
      ctx.body = (await rooms.accept(ctx.state.user.id, id)) satisfies JoinRoomResponse;
    },
  );

  router.post(ROOM_ROUTES.declineInvitation.pattern, requireAuth, async (ctx) => {
    const { id } = validate(idParamsSchema, ctx.params);
    await rooms.decline(ctx.state.user.id, id);
    ctx.status = 204;
  });

  router.get(ROOM_ROUTES.room.pattern, requireAuth, async (ctx) => {
    const { id } = validate(idParamsSchema, ctx.params);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { room: await rooms.get(ctx.state.user.id, id) } satisfies RoomResponse;
  });

  router.patch(ROOM_ROUTES.room.pattern, requireAuth, async (ctx) => {
    const { id } = validate(idParamsSchema, ctx.params);
    const changes = validateRoomBody(updateRoomSchema, ctx.request.body);
    ctx.body = { room: await rooms.update(ctx.state.user.id, id, changes) } satisfies RoomResponse;
  });

  router.delete(ROOM_ROUTES.room.pattern, requireAuth, async (ctx) => {
    const { id } = validate(idParamsSchema, ctx.params);
    await rooms.delete(ctx.state.user.id, id);
    ctx.status = 204;
  });

  // The admin names (PUT) or unnames (DELETE) a moderator of the room.
  for (const [method, moderator] of [
    ['put', true],
    ['delete', false],
  ] as const) {
    router[method](ROOM_ROUTES.moderator.pattern, requireAuth, async (ctx) => {
      const { id, userId } = validate(moderatorParamsSchema, ctx.params);
      ctx.body = {
        room: await rooms.setModerator(ctx.state.user.id, id, userId, moderator),
      } satisfies RoomResponse;
    });
  }

  router.post(ROOM_ROUTES.join.pattern, requireAuth, perUser(LIMITS.roomJoinPerUser), async (ctx) => {
    const { id } = validate(idParamsSchema, ctx.params);
    const { password, unreachable } = validate(joinRoomSchema, ctx.request.body);
    ctx.body = (await rooms.join(ctx.state.user.id, id, password, unreachable)) satisfies JoinRoomResponse;
  });

  router.post(ROOM_ROUTES.invite.pattern, requireAuth, perUser(LIMITS.roomInvitesPerUser), async (ctx) => {
    const { id } = validate(idParamsSchema, ctx.params);
    const { userIds } = validate(inviteSchema, ctx.request.body);
    ctx.status = 201;
    ctx.body = { invitations: await rooms.invite(ctx.state.user.id, id, userIds) } satisfies InviteResponse;
  });

  return router;
}
