/**
 * A CallSocket for tests: records requests, answers them with what the test sets (or
 * `{ok: true}`), and lets the test send server events and change the socket's status.
 */
import type {
  ClientRequestName,
  RequestData,
  RequestReply,
  ServerEventName,
  ServerEvents,
} from '@voice/protocol';
import type { SocketStatus } from '../../../socket/AppSocket.ts';
import type { CallSocket } from '../CallController.ts';

type Handler = (data: unknown) => Promise<unknown>;

export class FakeCallSocket implements CallSocket {
  status: SocketStatus = 'connected';
  /** Every request sent, in order. */
  readonly requests: { method: ClientRequestName; data: unknown }[] = [];
  readonly #handlers = new Map<string, Handler>();
  readonly #events = new Map<string, Set<(data: unknown) => void>>();
  readonly #statusListeners = new Set<(status: SocketStatus) => void>();

  /** Answers `method` with `handler` from now on. */
  answer<N extends ClientRequestName>(
    method: N,
    handler: (data: RequestData<N>) => Promise<RequestReply<N>>,
  ): void {
    this.#handlers.set(method, handler as Handler);
  }

  request<N extends ClientRequestName>(method: N, data: RequestData<N>): Promise<RequestReply<N>> {
    this.requests.push({ method, data });
    const handler = this.#handlers.get(method);
    return (handler ? handler(data) : Promise.resolve({ ok: true })) as Promise<RequestReply<N>>;
  }

  /** The requests sent with `method`, their data only. */
  sent(method: ClientRequestName): unknown[] {
    return this.requests.filter((r) => r.method === method).map((r) => r.data);
  }

  on<E extends ServerEventName>(event: E, handler: (data: ServerEvents[E]) => void): () => void {
    let set = this.#events.get(event);
    if (!set) {
      set = new Set();
      this.#events.set(event, set);
    }
    const listener = handler as (data: unknown) => void;
    set.add(listener);
    return () => set.delete(listener);
  }

  onStatusChange(listener: (status: SocketStatus) => void): () => void {
    this.#statusListeners.add(listener);
    return () => this.#statusListeners.delete(listener);
  }

  /** Delivers a server event to the subscribers. */
  emit<E extends ServerEventName>(event: E, data: ServerEvents[E]): void {
    for (const listener of [...(this.#events.get(event) ?? [])]) listener(data);
  }

  setStatus(status: SocketStatus): void {
    this.status = status;
    for (const listener of [...this.#statusListeners]) listener(status);
  }

  /** How many event and status subscriptions are live. */
  get listenerCount(): number {
    let count = this.#statusListeners.size;
    for (const set of this.#events.values()) count += set.size;
    return count;
  }
}
