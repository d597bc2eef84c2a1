/**
 * Room tokens already spent, as every media server process and every restart of one sees them:
 * `room-token:<jti>` in Redis, set only if absent and expiring with the token. A media server
 * that restarts forgets the tokens it spent in memory; this record remembers them until they
 * expire, so a token copied from a log cannot open a second connection after a restart either.
 */
import type { RedisLink } from '@voice/bus';

export interface SpentRoomTokens {
  /** Marks `jti` spent until `untilMs` (ms since the epoch): true the first time, false after. */
  spend(jti: string, untilMs: number): Promise<boolean>;
}

export class RedisSpentRoomTokens implements SpentRoomTokens {
  constructor(
    readonly link: RedisLink,
    readonly prefix: string,
  ) {}

  async spend(jti: string, untilMs: number): Promise<boolean> {
    const reply = await this.link.call((redis) =>
      redis.set(this.key(jti), '1', { condition: 'NX', expiration: { type: 'PXAT', value: untilMs } }),
    );
    return reply === 'OK';
  }

  key(jti: string): string {
    return `${this.prefix}room-token:${jti}`;
  }
}
