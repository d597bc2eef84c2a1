/** Bus over Redis pub/sub: one connection publishes, a duplicate one subscribes. */
import type { createClient } from 'redis';
import type { Logger } from '../logger.ts';
import type { Bus, BusHandler } from './Bus.ts';

type RedisClient = ReturnType<typeof createClient>;

export class RedisBus implements Bus {
  #handlers = new Map<string, Set<BusHandler>>();
  #closed = false;

  private constructor(
    readonly publisher: RedisClient,
    readonly subscriber: RedisClient,
    readonly prefix: string,
    readonly logger: Logger,
  ) {}

  /** `client` stays owned by the caller; the subscriber connection is the bus's own. */
  static async create(client: RedisClient, prefix: string, logger: Logger): Promise<RedisBus> {
    const subscriber = client.duplicate();
    subscriber.on('error', (error: unknown) => logger.error('redis subscriber error', { error }));
    await subscriber.connect();
    return new RedisBus(client, subscriber, prefix, logger);
  }

  async publish(channel: string, message: unknown): Promise<void> {
    await this.publisher.publish(this.prefix + channel, JSON.stringify(message));
  }

  async subscribe(channel: string, handler: BusHandler) {
    let handlers = this.#handlers.get(channel);
    if (!handlers) {
      handlers = new Set();
      this.#handlers.set(channel, handlers);
      const set = handlers;
      await this.subscriber.subscribe(this.prefix + channel, (raw: string) => {
        let message: unknown;
        try {
          message = JSON.parse(raw);
        } catch {
          this.logger.warn('bus: dropped a message that is not JSON', { channel });
          return;
        }
        for (const h of set) h(message);
      });
    }
    handlers.add(handler);
    return async () => {
      const current = this.#handlers.get(channel);
      if (!current?.delete(handler) || current.size > 0) return;
      this.#handlers.delete(channel);
      if (!this.#closed) await this.subscriber.unsubscribe(this.prefix + channel);
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#handlers.clear();
    await this.subscriber.quit();
  }
}
