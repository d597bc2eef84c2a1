/**
 * Requests a browser may send over the app socket: one small typed handler each, written
 * by the feature it belongs to (friends/socketHandlers.ts, ...) and merged by the server.
 */
import type { ClientRequestName, RequestData, RequestReply } from '@voice/protocol';
import type { z } from 'zod';

/** Who is asking: the person, their session and their tab. */
export interface SocketContext {
  userId: string;
  sessionId: string;
  /** The tab's connection, for replies that must reach only it (a call's signalling). */
  connectionId: string;
}

/** Told of the app socket's connections that close, e.g. to end the call a tab was in. */
export interface SocketLifecycle {
  connectionClosed(ctx: SocketContext): void;
}

/** The handler of request `N`: the schema its data is checked against, then the work. */
export interface SocketHandler<N extends ClientRequestName> {
  schema: z.ZodType<RequestData<N>>;
  handle(ctx: SocketContext, data: RequestData<N>): Promise<RequestReply<N>>;
}

/** Handlers of the requests `N`; with the default, of every request of the protocol. */
export type SocketHandlers<N extends ClientRequestName = ClientRequestName> = { [K in N]: SocketHandler<K> };
