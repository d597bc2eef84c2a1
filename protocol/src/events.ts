/**
 * The app socket (protoo over WebSocket at /ws): event names and payloads, spec
 * section 7. Server-to-client events are protoo notifications; client-to-server
 * events are protoo requests answered with `{ok: true}` or an error.
 */
import type { User } from './api.ts';
import type { CallEndReason, CallHangupReason, CallIceCandidate } from './calls.ts';
import type { JoinRoomResponse, Room, RoomInvitation, UserRoom } from './rooms.ts';

/**
 * Path of the app socket. The handshake carries a socket ticket in the `ticket` query
 * parameter, never the session token: a URL ends up in proxy and access logs.
 */
export const APP_SOCKET_PATH = '/ws';

/** Route paths (relative to API_BASE) of the app socket. */
export const SOCKET_ROUTES = {
  /** POST with the session as bearer: a ticket for one app-socket handshake (SocketTicketResponse). */
  ticket: '/socket/ticket',
} as const;

/**
 * Socket tickets: random bytes (base64url in the URL), good for one handshake within
 * `ttlSeconds` on any API process. A client asks for a new one before every (re)connect.
 */
export const SOCKET_TICKET = { bytes: 32, ttlSeconds: 30 } as const;

/** The answer of SOCKET_ROUTES.ticket. */
export interface SocketTicketResponse {
  /** For `${APP_SOCKET_PATH}?ticket=…`, once. */
  ticket: string;
  /** When the ticket stops working, in ms since the epoch. */
  expiresAt: number;
}

/** Minimal public profile carried by request events. */
export interface UserSummary {
  id: string;
  username: string;
  display_name: string | null;
  avatar_url: string | null;
}

/**
 * Why the server is closing a socket, told in `socket-closing` just before it does.
 * - too-many-sockets: the person opened more than SOCKETS_PER_USER_MAX; this was their oldest.
 *   Do not reconnect on your own: that would close another of their tabs, and so on.
 * - session-expired: the session's time is up (a logout or removal closes without a reason).
 */
export type SocketCloseReason = 'too-many-sockets' | 'session-expired';

/** Notifications the server sends, by name. */
export interface ServerEvents {
  /** Sent just before the server closes this socket (protoo close code 4000). */
  'socket-closing': { reason: SocketCloseReason };
  'friend-online': { userId: string };
  'friend-offline': { userId: string; last_seen: string };
  'avatar-updated': { userId: string; avatar_url: string | null };
  'friend-call-status-changed': { userId: string; isInCall: boolean };
  'friend-request-received': { from: UserSummary };
  'friend-request-accepted': { user: User };
  'friend-removed': { userId: string };
  /**
   * A request was rejected. To the rejecter's tabs, `userId` is the sender (drop it from
   * the incoming list); to the sender's tabs, `userId` is the person who rejected (their
   * search result offers "Add" again and the Sent list drops them).
   */
  'friend-request-rejected': { userId: string };
  /**
   * A pending request was withdrawn by its sender. To the recipient's tabs, `userId` is
   * the sender; to the sender's other tabs, `userId` is the recipient.
   */
  'friend-request-cancelled': { userId: string };
  /** To the sender's own tabs: a request to `to` is now pending, for their Sent lists. */
  'friend-request-sent': { to: UserSummary; created_at: string };
  /** To friends and the person's own tabs: a display name changed (avatars have `avatar-updated`). */
  'profile-updated': { userId: string; display_name: string | null };
  /** To the caller's tab that asked: the callee's tabs are ringing. */
  'call-initiated': { callId: string; targetUserId: string };
  /** To every tab of the callee. */
  'incoming-call': { callId: string; caller: UserSummary };
  /** To the caller's tab: the callee answered (their other tabs get `call-ended` answered-elsewhere). */
  'call-accepted': { callId: string };
  /** To the caller's tab: the callee declined. */
  'call-rejected': { callId: string };
  /** To the parties' tabs of the call: it is over. */
  'call-ended': { callId: string; reason: CallEndReason };
  /** Relayed from the other party's bound tab. */
  'webrtc-offer': { callId: string; sdp: string };
  'webrtc-answer': { callId: string; sdp: string };
  'webrtc-ice-candidate': { callId: string; candidate: CallIceCandidate };
  /** From the other party's bound tab of an answered call: their microphone muted or not. */
  'call-muted': { callId: string; muted: boolean };
  /** To every tab of the invitee. */
  'room-invitation-received': { invitation: RoomInvitation };
  /**
   * To every tab of the invitee: the invitation is gone — accepted or declined in one of their
   * tabs, or its room deleted.
   */
  'room-invitation-removed': { invitationId: string; roomId: string };
  /** To tabs watching the room list (`watch-rooms`) that may see it: created, changed, or its members changed. */
  'room-updated': { room: Room };
  /** To watching tabs that could see it: deleted, or no longer theirs to see (it became private). */
  'room-removed': { roomId: string };
  /** To friends: the person entered a room (its name null when it is private to them) or left (null). */
  'friend-room-changed': { userId: string; room: UserRoom | null };
}
export type ServerEventName = keyof ServerEvents;

/**
 * Requests the client may send: name, then the data it sends and the reply it gets (as
 * mediasoup-demo declares its protoo messages). Both sides use these, so no reply is cast.
 * A refused request is a protoo error whose code is the HTTP-like status and whose reason is
 * the stable error code (ErrorCode), the same as a REST error's `code`.
 */
export interface ClientRequests {
  'accept-friend-request': { data: { userId: string }; reply: { ok: true } };
  'initiate-call': { data: { targetUserId: string }; reply: { callId: string } };
  /**
   * Only the callee; the first tab to accept gets the call (409 CALL_ALREADY_ANSWERED for the
   * others). `sdp` is the tab's answer to the offer that came while the call rang: the caller
   * gets it as `webrtc-answer` right after `call-accepted` (without it, the tab answers the
   * offer with `webrtc-answer` once it has it).
   */
  'accept-call': { data: { callId: string; sdp?: string }; reply: { ok: true } };
  'reject-call': { data: { callId: string }; reply: { ok: true } };
  /** Either party; the caller's end of a ringing call cancels it. */
  'end-call': { data: { callId: string; reason?: CallHangupReason }; reply: { ok: true } };
  /**
   * Relayed to the other party's bound tab only. While the call rings, the caller's offer and
   * candidates go to every tab of the callee (each prepares its answer; none is sent before
   * accept-call), and the callee's tabs may relay nothing.
   */
  'webrtc-offer': { data: { callId: string; sdp: string }; reply: { ok: true } };
  'webrtc-answer': { data: { callId: string; sdp: string }; reply: { ok: true } };
  'webrtc-ice-candidate': { data: { callId: string; candidate: CallIceCandidate }; reply: { ok: true } };
  /** Your microphone muted or not, told to the other party of your answered call (`call-muted`). */
  'call-muted': { data: { callId: string; muted: boolean }; reply: { ok: true } };
  /** The same checks and answer as POST /api/rooms/:id/join. */
  'join-room': { data: { roomId: string; password?: string }; reply: JoinRoomResponse };
  /** This tab hears `room-updated` and `room-removed` until `unwatch-rooms` or it closes. */
  'watch-rooms': { data: Record<string, never>; reply: { ok: true } };
  'unwatch-rooms': { data: Record<string, never>; reply: { ok: true } };
  /** Whether this tab is shown (visibilitychange): a person with a shown tab gets no web push. */
  'set-visibility': { data: { visible: boolean }; reply: { ok: true } };
}
export type ClientRequestName = keyof ClientRequests;
/** What the client sends with request `N`. */
export type RequestData<N extends ClientRequestName> = ClientRequests[N]['data'];
/** What the server answers to request `N`. */
export type RequestReply<N extends ClientRequestName> = ClientRequests[N]['reply'];

/** protoo error codes of rejected socket requests (HTTP-like). */
export const SOCKET_ERROR = {
  badRequest: 400,
  notFound: 404,
  conflict: 409,
  rateLimited: 429,
  internal: 500,
  /** The database or Redis did not answer in time: nothing changed, try again. */
  unavailable: 503,
} as const;

/** Largest protoo message (frame and message) a browser may send on the app socket. */
export const SOCKET_MAX_MESSAGE_BYTES = 64 * 1024;

/** WebSocket handshake refusals. */
export const SOCKET_REJECT = {
  unauthorized: { status: 401, reason: 'Unauthorized' },
  forbiddenOrigin: { status: 403, reason: 'Origin not allowed' },
  notFound: { status: 404, reason: 'Not found' },
  /** The ticket or its session could not be checked in time (Redis or the database did not answer): try again. */
  unavailable: { status: 503, reason: 'Service unavailable' },
} as const;

/** Presence heartbeat: a node that misses beats for PRESENCE.nodeTtlMs is presumed dead. */
export const PRESENCE = {
  heartbeatMs: 5000,
  nodeTtlMs: 15_000,
} as const;
