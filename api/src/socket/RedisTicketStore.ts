/**
 * Socket tickets in Redis, shared by every API process: `socket-ticket:<ticket>` holds the
 * holder as JSON and expires by itself; GETDEL reads and removes it in one atomic step.
 */
import type { RedisLink } from '@voice/bus';
import { z } from 'zod';
import type { TicketHolder, TicketStore } from './TicketStore.ts';

const holderSchema = z.object({ userId: z.string().min(1), sessionId: z.string().min(1) });

export class RedisTicketStore implements TicketStore {
  constructor(
    readonly link: RedisLink,
    readonly prefix: string,
  ) {}

  async put(ticket: string, holder: TicketHolder, ttlMs: number): Promise<void> {
    const value = JSON.stringify({ userId: holder.userId, sessionId: holder.sessionId });
    await this.link.call((redis) => redis.set(this.key(ticket), value, { PX: ttlMs }));
  }

  async take(ticket: string): Promise<TicketHolder | null> {
    const value = await this.link.call((redis) => redis.getDel(this.key(ticket)));
    if (typeof value !== 'string') return null;
    // Written by this code, but Redis is outside the process: a value not ours opens nothing.
    try {
      const parsed = holderSchema.safeParse(JSON.parse(value));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }

  /** The Redis key of `ticket` (tests look at its expiry). */
  key(ticket: string): string {
    return `${this.prefix}socket-ticket:${ticket}`;
  }
}
