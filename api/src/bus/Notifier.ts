/**
 * Sends socket events to people, on whichever API process holds their tabs.
 *
 * Every process subscribes to one channel and picks out the recipients it holds:
 * an event for fifty friends is one bus message, not fifty.
 */
import type { ServerEventName, ServerEvents } from '@voice/protocol';
import type { Bus } from './Bus.ts';

/** The channel every API process listens on. */
export const DELIVERY_CHANNEL = 'deliver';

/** Internal messages for the process holding the user's sockets, never sent to browsers. */
export type ControlEvent = '_session-revoked';

/** What travels on the delivery channel. */
export interface Delivery {
  to: string[];
  event: ServerEventName | ControlEvent;
  data: unknown;
}

// Keeps one bus message small even for someone with thousands of friends.
const MAX_RECIPIENTS = 500;

export class Notifier {
  constructor(readonly bus: Bus) {}

  notify<E extends ServerEventName>(userId: string, event: E, data: ServerEvents[E]): Promise<void> {
    return this.#send([userId], event, data);
  }

  notifyMany<E extends ServerEventName>(
    userIds: Iterable<string>,
    event: E,
    data: ServerEvents[E],
  ): Promise<void> {
    return this.#send([...userIds], event, data);
  }

  /** Closes the sockets of one session (logout) or, with null, of every session (password reset). */
  revokeSessions(userId: string, sessionId: string | null): Promise<void> {
    return this.#send([userId], '_session-revoked', { sessionId });
  }

  async #send(to: string[], event: Delivery['event'], data: unknown): Promise<void> {
    for (let i = 0; i < to.length; i += MAX_RECIPIENTS) {
      const message: Delivery = { to: to.slice(i, i + MAX_RECIPIENTS), event, data };
      await this.bus.publish(DELIVERY_CHANNEL, message);
    }
  }
}
