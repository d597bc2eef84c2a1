/**
 * A bus whose outage a test times to the millisecond: a real bus underneath, and two gates in
 * front of it, as a media server has two Redis connections that come back one after the other.
 * `carries` false: what is published goes nowhere, and the bus says it is unavailable; `hears`
 * false: what the others publish is not delivered here. `recover()` opens the first gate and
 * calls the onRecovered handlers, as a RedisBus does when its connection answers again.
 */
import type { Bus, BusHandler, Channel } from '@voice/bus';

export class GatedBus implements Bus {
  readonly #inner: Bus;
  readonly #recovered = new Set<() => void>();
  #carries = true;
  hears = true;

  constructor(inner: Bus) {
    this.#inner = inner;
  }

  /** Both gates shut: nothing leaves, nothing arrives. */
  cut(): void {
    this.#carries = false;
    this.hears = false;
  }

  /** Publishing works again, and whoever asked hears of it; hearing is `hears`' business. */
  recover(): void {
    this.#carries = true;
    for (const handler of [...this.#recovered]) handler();
  }

  async publish<T>(channel: Channel<T>, message: T): Promise<void> {
    if (this.#carries) await this.#inner.publish(channel, message);
  }

  subscribe<T>(channel: Channel<T>, handler: BusHandler<T>): Promise<() => Promise<void>> {
    return this.#inner.subscribe(channel, (message) => {
      if (this.hears) handler(message);
    });
  }

  onRecovered(handler: () => void): () => void {
    this.#recovered.add(handler);
    return () => this.#recovered.delete(handler);
  }

  get available(): boolean {
    return this.#carries;
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}
