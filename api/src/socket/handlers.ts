/** Requests a browser may send over the app socket: one small typed handler each. */
import type { ClientRequestName, ClientRequests } from '@voice/protocol';
import type { z } from 'zod';
import type { FriendService } from '../friends/FriendService.ts';
import { userIdBodySchema } from '../friends/schema.ts';

/** Who is asking. */
export interface SocketContext {
  userId: string;
  sessionId: string;
}

interface Handler<N extends ClientRequestName> {
  schema: z.ZodType<ClientRequests[N]>;
  handle(ctx: SocketContext, data: ClientRequests[N]): Promise<unknown>;
}

export type Handlers = { [N in ClientRequestName]: Handler<N> };

export interface HandlerDeps {
  friends: FriendService;
}

export function createHandlers({ friends }: HandlerDeps): Handlers {
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
