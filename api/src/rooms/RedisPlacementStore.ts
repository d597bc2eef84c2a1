/**
 * Room placements in Redis, shared by every API process: `room-server:<roomId>` holds the
 * media server's id. A placement unused for PLACEMENT_TTL_MS expires; by then its server
 * has usually restarted under a new id anyway.
 */
import type { RedisLink } from '@voice/bus';
import type { PlacementStore } from './PlacementStore.ts';

const PLACEMENT_TTL_MS = 24 * 60 * 60 * 1000;

// Sets the placement if there is none or it is still the one the caller saw; answers what is stored now.
const CLAIM_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if current == false or current == ARGV[2] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
  return ARGV[1]
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return current`;

export class RedisPlacementStore implements PlacementStore {
  constructor(
    readonly link: RedisLink,
    readonly prefix: string,
  ) {}

  get(roomId: string): Promise<string | null> {
    return this.link.call((redis) => redis.get(this.#key(roomId)));
  }

  async claim(roomId: string, serverId: string, previous: string | null): Promise<string> {
    const stored = await this.link.call((redis) =>
      redis.eval(CLAIM_SCRIPT, {
        keys: [this.#key(roomId)],
        arguments: [serverId, previous ?? '', String(PLACEMENT_TTL_MS)],
      }),
    );
    return String(stored);
  }

  async remove(roomId: string): Promise<void> {
    await this.link.call((redis) => redis.del(this.#key(roomId)));
  }

  #key(roomId: string): string {
    return `${this.prefix}room-server:${roomId}`;
  }
}
