/**
 * Sends socket events to people, or to particular tabs of theirs, on whichever API
 * process holds them.
 *
 * Every process subscribes to one channel and picks out the recipients it holds: an event
 * for fifty friends is one bus message, not fifty. An event for one tab that this process
 * holds (a call's relayed offer, answer and candidates, most often) skips the bus.
 */
import { type Bus, deliveryChannel } from '@voice/bus';
import type {
  ControlEventName,
  ControlEvents,
  Delivery,
  ServerEventName,
  ServerEvents,
} from '@voice/protocol';

// Keeps one bus message small even for someone with thousands of friends.
const MAX_RECIPIENTS = 500;

/** This process's own tabs, for deliveries that need not go round the bus. */
export interface LocalTabs {
  /** Sends to tab `connectionId` of `userId` if this process holds it; whether it did. */
  deliverToConnection(userId: string, connectionId: string, event: ServerEventName, data: unknown): boolean;
}

export class Notifier {
  #local: LocalTabs | null = null;

  constructor(readonly bus: Bus) {}

  /** The app socket of this process, once it exists. */
  attachLocalTabs(local: LocalTabs): void {
    this.#local = local;
  }

  /** To every tab of `userId`. */
  notify<E extends ServerEventName>(userId: string, event: E, data: ServerEvents[E]): Promise<void> {
    return this.#send([userId], event, data);
  }

  /** To every tab of each of `userIds`. */
  notifyMany<E extends ServerEventName>(
    userIds: Iterable<string>,
    event: E,
    data: ServerEvents[E],
  ): Promise<void> {
    return this.#send([...userIds], event, data);
  }

  /** To one tab (connection) of `userId` only, e.g. the tab that answered a call. */
  notifyConnection<E extends ServerEventName>(
    userId: string,
    connectionId: string,
    event: E,
    data: ServerEvents[E],
  ): Promise<void> {
    if (this.#local?.deliverToConnection(userId, connectionId, event, data)) return Promise.resolve();
    return this.bus.publish(deliveryChannel, { to: [userId], connections: [connectionId], event, data });
  }

  /** To the named tabs only, e.g. those watching the room list. */
  async notifyConnections<E extends ServerEventName>(
    tabs: ReadonlyArray<{ userId: string; connectionId: string }>,
    event: E,
    data: ServerEvents[E],
  ): Promise<void> {
    for (let i = 0; i < tabs.length; i += MAX_RECIPIENTS) {
      const chunk = tabs.slice(i, i + MAX_RECIPIENTS);
      await this.bus.publish(deliveryChannel, {
        to: [...new Set(chunk.map((tab) => tab.userId))],
        connections: chunk.map((tab) => tab.connectionId),
        event,
        data,
      });
    }
  }

  /** To every tab of `userId` but `exceptConnectionId`, e.g. the callee's tabs that did not answer. */
  notifyOtherConnections<E extends ServerEventName>(
    userId: string,
    exceptConnectionId: string,
    event: E,
    data: ServerEvents[E],
  ): Promise<void> {
    return this.bus.publish(deliveryChannel, { to: [userId], except: [exceptConnectionId], event, data });
  }

  /** Closes the sockets of one session (logout) or, with null, of every session (password reset). */
  revokeSessions(userId: string, sessionId: string | null): Promise<void> {
    return this.#control([userId], '_session-revoked', { sessionId });
  }

  #control<E extends ControlEventName>(to: string[], event: E, data: ControlEvents[E]): Promise<void> {
    return this.#send(to, event, data);
  }

  async #send(to: string[], event: Delivery['event'], data: unknown): Promise<void> {
    for (let i = 0; i < to.length; i += MAX_RECIPIENTS) {
      await this.bus.publish(deliveryChannel, { to: to.slice(i, i + MAX_RECIPIENTS), event, data });
    }
  }
}
