/** The rooms feature's app-socket request: `join-room` does what POST /api/rooms/:id/join does. */
import { LIMITS, type RateLimiter } from '../http/RateLimiter.ts';
import type { SocketHandlers } from '../socket/handlers.ts';
import type { RoomService } from './RoomService.ts';
import { joinRoomRequestSchema } from './schema.ts';

export function roomSocketHandlers(rooms: RoomService, limiter: RateLimiter): SocketHandlers<'join-room'> {
  return {
    'join-room': {
      schema: joinRoomRequestSchema,
      async handle(ctx, { roomId, password }) {
        // The same count as the REST join: the socket is no way around it.
        await limiter.consume(LIMITS.roomJoinPerUser, ctx.userId);
        return rooms.join(ctx.userId, roomId, password);
      },
    },
  };
}
