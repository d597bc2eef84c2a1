/**
 * The app socket (protoo over WebSocket at /ws): event names and payloads, spec
 * section 7. Server-to-client events are protoo notifications; client-to-server
 * events are protoo requests answered with `{ok: true}` or an error.
 */
import type { User } from './api.ts';

/** Path of the app socket; the session token goes in the `token` query parameter. */
export const APP_SOCKET_PATH = '/ws';

/** Minimal public profile carried by request events. */
export interface UserSummary {
  id: string;
  username: string;
  display_name: string | null;
  avatar_url: string | null;
}

/** Notifications the server sends, by name. */
export interface ServerEvents {
  'friend-online': { userId: string };
  'friend-offline': { userId: string; last_seen: string };
  'avatar-updated': { userId: string; avatar_url: string | null };
  'friend-call-status-changed': { userId: string; isInCall: boolean };
  'friend-request-received': { from: UserSummary };
  'friend-request-accepted': { user: User };
  'friend-removed': { userId: string };
  /** To your own tabs: you rejected the request `userId` sent (the sender is not told). */
  'friend-request-rejected': { userId: string };
}
export type ServerEventName = keyof ServerEvents;

/** Requests the client may send, by name, with their payloads. */
export interface ClientRequests {
  'accept-friend-request': { userId: string };
}
export type ClientRequestName = keyof ClientRequests;

/** protoo error codes of rejected socket requests (HTTP-like). */
export const SOCKET_ERROR = {
  badRequest: 400,
  notFound: 404,
  conflict: 409,
  rateLimited: 429,
  internal: 500,
} as const;

/** WebSocket handshake refusals. */
export const SOCKET_REJECT = {
  unauthorized: { status: 401, reason: 'Unauthorized' },
  forbiddenOrigin: { status: 403, reason: 'Origin not allowed' },
  notFound: { status: 404, reason: 'Not found' },
} as const;

/** Presence heartbeat: a node that misses beats for PRESENCE.nodeTtlMs is presumed dead. */
export const PRESENCE = {
  heartbeatMs: 5000,
  nodeTtlMs: 15_000,
} as const;
