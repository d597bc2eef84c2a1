/**
 * The rooms feature's app-socket requests: `join-room` does what POST /api/rooms/:id/join
 * does; `watch-rooms` and `unwatch-rooms` start and stop the tab's live room list.
 */
import { LIMITS, type RateLimiter } from '../http/RateLimiter.ts';
import type { SocketHandlers } from '../socket/handlers.ts';
import type { RoomService } from './RoomService.ts';
import type { RoomWatchers } from './RoomWatchers.ts';
import { joinRoomRequestSchema, watchRoomsSchema } from './schema.ts';

export function roomSocketHandlers(
  rooms: RoomService,
  watchers: RoomWatchers,
  limiter: RateLimiter,
): SocketHandlers<'join-room' | 'watch-rooms' | 'unwatch-rooms'> {
  return {
    'join-room': {
      schema: joinRoomRequestSchema,
      async handle(ctx, { roomId, password }) {
        // The same count as the REST join: the socket is no way around it.
        await limiter.consume(LIMITS.roomJoinPerUser, ctx.userId);
        return rooms.join(ctx.userId, roomId, password);
      },
    },
    'watch-rooms': {
      schema: watchRoomsSchema,
      async handle(ctx) {
        watchers.watch(ctx);
        return { ok: true };
      },
    },
    'unwatch-rooms': {
      schema: watchRoomsSchema,
      async handle(ctx) {
        watchers.unwatch(ctx);
        return { ok: true };
      },
    },
  };
}
