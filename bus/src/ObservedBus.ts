/**
 * A bus that tells an observer what goes through it (metrics), and otherwise is the bus it
 * wraps. The observer sees channel names only, never messages.
 *
 * Messages carry no send time, so the lag between a publish on one process and its arrival on
 * another cannot be known here; what is measured is how long a publish takes to be accepted
 * (Redis's answer to PUBLISH, or a microtask for the in-process bus).
 */
import type { Bus, BusHandler } from './Bus.ts';
import type { Channel } from './Channel.ts';

/** Told of every publish and every message handed to a subscriber. */
export interface BusObserver {
  /** A publish on `channel` finished (`ok` false: it threw) after `seconds`. */
  published(channel: string, seconds: number, ok: boolean): void;
  /** A well-formed message on `channel` reached one of this process's subscribers. */
  received(channel: string): void;
}

export class ObservedBus implements Bus {
  readonly #bus: Bus;
  readonly #observer: BusObserver;

  constructor(bus: Bus, observer: BusObserver) {
    this.#bus = bus;
    this.#observer = observer;
  }

  async publish<T>(channel: Channel<T>, message: T): Promise<void> {
    const started = process.hrtime.bigint();
    let ok = false;
    try {
      await this.#bus.publish(channel, message);
      ok = true;
    } finally {
      this.#observer.published(channel.name, Number(process.hrtime.bigint() - started) / 1e9, ok);
    }
  }

  subscribe<T>(channel: Channel<T>, handler: BusHandler<T>): Promise<() => Promise<void>> {
    return this.#bus.subscribe(channel, (message) => {
      this.#observer.received(channel.name);
      handler(message);
    });
  }

  onRecovered(handler: () => void): () => void {
    return this.#bus.onRecovered(handler);
  }

  get available(): boolean {
    return this.#bus.available;
  }

  close(): Promise<void> {
    return this.#bus.close();
  }
}
