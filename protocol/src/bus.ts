/**
 * What API processes and media servers say to each other on the bus: channel names and
 * message types. The schemas that check them on arrival live in @voice/bus.
 */
import type { ServerEventName } from './events.ts';

/** Socket events for people and tabs, picked up by whichever API process holds them. */
export const DELIVERY_CHANNEL = 'deliver';

/** Internal events for the process holding a person's sockets, never sent to browsers. */
export interface ControlEvents {
  /** Close the sockets of one session, or with null of every session of the person. */
  '_session-revoked': { sessionId: string | null };
}
export type ControlEventName = keyof ControlEvents;

/**
 * One event on its way: to every tab of the people in `to`, or, with `connections`, only
 * to those tabs (connection ids), e.g. the one tab that answered a call.
 */
export interface Delivery {
  to: string[];
  connections?: string[];
  /** Tabs (connection ids) left out of a delivery to every tab, e.g. the tab that answered a call. */
  except?: string[];
  event: ServerEventName | ControlEventName;
  data: unknown;
}

/** A person has more sockets than SOCKETS_PER_USER_MAX: the processes holding these close them. */
export const SOCKET_EVICT_CHANNEL = 'socket-evict';

export interface SocketEviction {
  userId: string;
  socketIds: string[];
}

/**
 * Sessions and accounts that changed, for every API process's cache of verified sessions:
 * a session ended (logout), a person's row changed or their sessions all ended (profile,
 * password reset, account removal), or, after an outage of the bus, forget everything.
 */
export const AUTH_CHANGES_CHANNEL = 'auth-changes';

export type AuthChange =
  | { type: 'session-ended'; sessionId: string }
  | { type: 'user-changed'; userId: string }
  | { type: 'flush' };
