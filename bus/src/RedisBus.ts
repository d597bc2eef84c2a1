/**
 * Bus over Redis pub/sub: the link's connection publishes, a duplicate one subscribes.
 *
 * While Redis is unavailable a message still reaches this process's own subscribers (so a
 * person's tabs on this process keep hearing their events); other processes miss it, and the
 * log says how many were missed. node-redis subscribes again by itself after a reconnection.
 */
import { type Bus, type BusHandler, dispatch, parseMessage } from './Bus.ts';
import type { Channel } from './Channel.ts';
import type { Logger } from './Logger.ts';
import { type RedisClient, type RedisLink, RedisUnavailableError } from './RedisLink.ts';

/** Receives the raw text of one channel's messages; parses it for its own subscriber. */
type RawListener = (raw: string) => void;

export class RedisBus implements Bus {
  #listeners = new Map<string, Set<RawListener>>();
  /** Messages other processes missed in the current outage. */
  #dropped = 0;
  #closed = false;

  private constructor(
    readonly link: RedisLink,
    readonly subscriber: RedisClient,
    readonly prefix: string,
    readonly logger: Logger,
  ) {
    link.onRecovered(() => {
      if (this.#dropped === 0) return;
      logger.warn(`bus: ${this.#dropped} messages reached only this process while Redis was unavailable`);
      this.#dropped = 0;
    });
  }

  /** The subscriber connection is the bus's own; the link stays the caller's. */
  static async create(link: RedisLink, prefix: string, logger: Logger): Promise<RedisBus> {
    const subscriber = link.client.duplicate();
    // One line when the subscription is lost and one when it is back, not one per retry.
    let subscribed = false;
    subscriber.on('error', (error: unknown) => {
      if (subscribed) logger.warn('bus: subscriber connection lost; reconnecting', { error });
      subscribed = false;
    });
    subscriber.on('ready', () => {
      if (!subscribed) logger.debug('bus: subscriber connected');
      subscribed = true;
    });
    await subscriber.connect();
    return new RedisBus(link, subscriber, prefix, logger);
  }

  async publish<T>(channel: Channel<T>, message: T): Promise<void> {
    await this.publishRaw(channel.name, JSON.stringify(message));
  }

  /** Publishes text as is, as a stranger on the bus could; for tests of the parsing. */
  async publishRaw(channelName: string, raw: string): Promise<void> {
    try {
      await this.link.call((client) => client.publish(this.prefix + channelName, raw));
    } catch (error) {
      if (!(error instanceof RedisUnavailableError)) throw error;
      if (this.#dropped === 0) this.logger.warn('bus: Redis unavailable; messages reach this process only');
      this.#dropped += 1;
      // Asynchronous, as a message from Redis would be.
      queueMicrotask(() => this.#dispatch(channelName, raw));
    }
  }

  async subscribe<T>(channel: Channel<T>, handler: BusHandler<T>) {
    const name = channel.name;
    const listener: RawListener = (raw) => {
      const message = parseMessage(channel, raw, this.logger);
      if (message !== null) dispatch([handler], message, name, this.logger);
    };
    let listeners = this.#listeners.get(name);
    if (!listeners) {
      listeners = new Set();
      this.#listeners.set(name, listeners);
      await this.subscriber.subscribe(this.prefix + name, (raw: string) => this.#dispatch(name, raw));
    }
    listeners.add(listener);
    return async () => {
      const current = this.#listeners.get(name);
      if (!current?.delete(listener) || current.size > 0) return;
      this.#listeners.delete(name);
      if (this.#closed) return;
      await this.subscriber.unsubscribe(this.prefix + name).catch((error: unknown) => {
        // Closed meanwhile, or Redis away; a stray subscription only costs unheard messages.
        if (!this.#closed) this.logger.debug('bus: unsubscribe failed', { channel: name, error });
      });
    };
  }

  /** When the link answers again (its subscriptions are renewed by node-redis about then). */
  onRecovered(handler: () => void): () => void {
    return this.link.onRecovered(handler);
  }

  get available(): boolean {
    return this.link.available;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#listeners.clear();
    if (!this.subscriber.isOpen) return;
    // Waits for outstanding (un)subscriptions, unless Redis does not answer.
    if (this.link.available) await this.subscriber.close();
    else this.subscriber.destroy();
  }

  #dispatch(name: string, raw: string): void {
    for (const listener of this.#listeners.get(name) ?? []) listener(raw);
  }
}
