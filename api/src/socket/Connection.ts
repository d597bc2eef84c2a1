/**
 * One browser tab's app socket: who it belongs to, its protoo peer, and the timer that
 * closes it when its session expires. `close()` is idempotent; the AppSocketServer hears
 * of it through the peer's close and forgets the connection.
 */
import type { ServerEventName, ServerEvents, SocketCloseReason } from '@voice/protocol';
import type protoo from 'protoo-server';
import { runAt } from './runAt.ts';

export class Connection {
  readonly #peer: protoo.Peer;
  #cancelExpiry: () => void = () => {};
  /** Closed because its session ended (logout, reset, removal): presence skips the reload grace. */
  #sessionEnded = false;

  constructor(
    /** Names the tab in deliveries, in the registry and in eviction messages. */
    readonly id: string,
    readonly userId: string,
    readonly sessionId: string,
    peer: protoo.Peer,
  ) {
    this.#peer = peer;
  }

  get closed(): boolean {
    return this.#peer.closed;
  }

  get sessionEnded(): boolean {
    return this.#sessionEnded;
  }

  /** Closes the tab at `expiresAt` with reason session-expired. */
  expireAt(expiresAt: Date): void {
    this.#cancelExpiry();
    this.#cancelExpiry = runAt(expiresAt.getTime(), () => this.close('session-expired'));
  }

  /** Sends an event; a tab that went away meanwhile is cleaned up by its close handler. */
  notify<E extends ServerEventName>(event: E, data: ServerEvents[E]): void {
    this.#peer.notify(event, data).catch(() => {});
  }

  /** Sends an event that came over the bus, already checked where it was sent. */
  forward(event: string, data: unknown): void {
    this.#peer.notify(event, data).catch(() => {});
  }

  /** The session ended: closes the tab, and its person goes offline without the reload grace. */
  endSession(): void {
    this.#sessionEnded = true;
    this.close();
  }

  /** Tells the tab why (when there is a reason to give), then closes it. */
  close(reason?: SocketCloseReason): void {
    this.#cancelExpiry();
    if (this.#peer.closed) return;
    // The notification is written before close() queues the close frame, so it arrives first.
    if (reason) this.notify('socket-closing', { reason });
    this.#peer.close();
  }
}
