/** Sends socket events to a person, on whichever API process holds their tabs. */
import type { ServerEventName, ServerEvents } from '@voice/protocol';
import type { Bus } from './Bus.ts';

/** What travels on a user's channel. */
export interface UserMessage {
  event: ServerEventName | ControlEvent;
  data: unknown;
}

/** Internal messages for the process holding the user's sockets, never sent to browsers. */
export type ControlEvent = '_session-revoked';

export const userChannel = (userId: string) => `user:${userId}`;

export class Notifier {
  constructor(readonly bus: Bus) {}

  notify<E extends ServerEventName>(userId: string, event: E, data: ServerEvents[E]): Promise<void> {
    return this.bus.publish(userChannel(userId), { event, data } satisfies UserMessage);
  }

  notifyMany<E extends ServerEventName>(
    userIds: Iterable<string>,
    event: E,
    data: ServerEvents[E],
  ): Promise<void> {
    return Promise.all([...userIds].map((id) => this.notify(id, event, data))).then(() => undefined);
  }

  /** Closes the sockets of one session (logout) or, with null, of every session (password reset). */
  revokeSessions(userId: string, sessionId: string | null): Promise<void> {
    return this.bus.publish(userChannel(userId), {
      event: '_session-revoked',
      data: { sessionId },
    } satisfies UserMessage);
  }
}
