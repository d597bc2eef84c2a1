/**
 * The service worker's messages to the app (NotificationWorkerMessage, spec section 7), read
 * at the edge: from a `message` event or, when the worker had to open a new window, from the
 * `notification` query parameter of its address. Anything else is ignored.
 */
import type { NotificationWorkerMessage } from '@voice/protocol';

/** The query parameter that carries a message to a window the worker opened. */
export const MESSAGE_QUERY_KEY = 'notification';

const isId = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

export function parseWorkerMessage(value: unknown): NotificationWorkerMessage | null {
  if (typeof value !== 'object' || value === null) return null;
  const message = value as Record<string, unknown>;
  switch (message.type) {
    case 'accept-call':
    case 'reject-call':
    case 'call-dismissed':
      return isId(message.callId) ? { type: message.type, callId: message.callId } : null;
    case 'accept-friend-request':
      return isId(message.userId) ? { type: message.type, userId: message.userId } : null;
    case 'join-room':
      if (!isId(message.roomId)) return null;
      if (message.invitationId === undefined) return { type: message.type, roomId: message.roomId };
      return isId(message.invitationId)
        ? { type: message.type, roomId: message.roomId, invitationId: message.invitationId }
        : null;
    default:
      return null;
  }
}

/** The message in an address's query (`search` as location.search gives it), if any. */
export function messageFromQuery(search: string): NotificationWorkerMessage | null {
  const raw = new URLSearchParams(search).get(MESSAGE_QUERY_KEY);
  if (!raw) return null;
  try {
    return parseWorkerMessage(JSON.parse(raw));
  } catch {
    return null;
  }
}
