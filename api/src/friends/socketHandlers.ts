/** The friends feature's app-socket requests. */
import type { SocketHandlers } from '../socket/handlers.ts';
import type { FriendService } from './FriendService.ts';
import { userIdBodySchema } from './schema.ts';

export function friendSocketHandlers(friends: FriendService): SocketHandlers<'accept-friend-request'> {
  return {
    'accept-friend-request': {
      schema: userIdBodySchema,
      async handle(ctx, { userId }) {
        await friends.accept(ctx.userId, userId);
        return { ok: true };
      },
    },
  };
}
