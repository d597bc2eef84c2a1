/**
 * Room members in Redis, shared by every API process: `room-members:<roomId>` holds the
 * RoomMembers JSON a media server last published. Every process hears the same bus message
 * and writes the same value, so the writes need no coordination.
 */
import type { RedisLink } from '@voice/bus';
import type { RoomMembers } from '@voice/protocol';
import type { MemberStore } from './MemberStore.ts';

// Media servers publish on every join and leave only; a room whose server died without a
// word is ignored as soon as that server stops announcing (RoomMembership), and forgotten here.
const MEMBERS_TTL_MS = 24 * 60 * 60 * 1000;

// Forgets the room only if the server saying goodbye is the one stored.
const FORGET_SCRIPT = `
local stored = redis.call('GET', KEYS[1])
if stored and cjson.decode(stored).serverId == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0`;

export class RedisMemberStore implements MemberStore {
  constructor(
    readonly link: RedisLink,
    readonly prefix: string,
  ) {}

  async set(members: RoomMembers): Promise<void> {
    const key = this.#key(members.roomId);
    await this.link.call((redis) =>
      members.peers.length === 0
        ? redis.eval(FORGET_SCRIPT, { keys: [key], arguments: [members.serverId] })
        : redis.set(key, JSON.stringify(members), { PX: MEMBERS_TTL_MS }),
    );
  }

  async getMany(roomIds: readonly string[]): Promise<Map<string, RoomMembers>> {
    const found = new Map<string, RoomMembers>();
    if (roomIds.length === 0) return found;
    const values = await this.link.call((redis) => redis.mGet(roomIds.map((id) => this.#key(id))));
    roomIds.forEach((roomId, i) => {
      const value = values[i];
      if (typeof value === 'string') found.set(roomId, JSON.parse(value) as RoomMembers);
    });
    return found;
  }

  async remove(roomId: string): Promise<void> {
    await this.link.call((redis) => redis.del(this.#key(roomId)));
  }

  #key(roomId: string): string {
    return `${this.prefix}room-members:${roomId}`;
  }
}
