/**
 * Room members in Redis, shared by every API process: `room-members:<roomId>` holds the
 * RoomMembers JSON a media server last published, and the hash `user-rooms` the room each
 * person went into last. Every process hears the same bus message and stores the same
 * value; the script compares with what is stored, so only the first store sees a change.
 */
import type { RedisLink } from '@voice/bus';
import type { RoomMembers } from '@voice/protocol';
import type { MemberChange, MemberStore } from './MemberStore.ts';

// Media servers publish on every join and leave only; a room whose server died without a
// word is ignored as soon as that server stops announcing (RoomMembership), and forgotten here.
const MEMBERS_TTL_MS = 24 * 60 * 60 * 1000;

// Records who entered and left between the stored peers and `after`, in `user-rooms` too.
const RECORD = `
local function record(roomId, before, after)
  local was, now, entered, left = {}, {}, {}, {}
  for _, p in ipairs(before) do was[p] = true end
  for _, p in ipairs(after) do now[p] = true end
  for _, p in ipairs(after) do
    if not was[p] then
      table.insert(entered, p)
      redis.call('HSET', KEYS[2], p, roomId)
    end
  end
  for _, p in ipairs(before) do
    if not now[p] then
      table.insert(left, p)
      if redis.call('HGET', KEYS[2], p) == roomId then redis.call('HDEL', KEYS[2], p) end
    end
  end
  return cjson.encode({entered = entered, left = left})
end
`;

// Stores ARGV[1] (RoomMembers JSON); no peers forgets the room only if its server is the one stored.
const SET_SCRIPT = `${RECORD}
local stored = redis.call('GET', KEYS[1])
local before = stored and cjson.decode(stored).peers or {}
local members = cjson.decode(ARGV[1])
if #members.peers == 0 then
  if not stored or cjson.decode(stored).serverId ~= members.serverId then return '{}' end
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
return record(members.roomId, before, members.peers)`;

const REMOVE_SCRIPT = `${RECORD}
local stored = redis.call('GET', KEYS[1])
if not stored then return '{}' end
redis.call('DEL', KEYS[1])
return record(ARGV[1], cjson.decode(stored).peers, {})`;

export class RedisMemberStore implements MemberStore {
  constructor(
    readonly link: RedisLink,
    readonly prefix: string,
  ) {}

  async set(members: RoomMembers): Promise<MemberChange> {
    const keys = [this.#key(members.roomId), this.#roomsKey];
    const args = [JSON.stringify(members), String(MEMBERS_TTL_MS)];
    return change(await this.link.call((redis) => redis.eval(SET_SCRIPT, { keys, arguments: args })));
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

  async roomsOf(userIds: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    if (userIds.length === 0) return found;
    const values = await this.link.call((redis) => redis.hmGet(this.#roomsKey, [...userIds]));
    userIds.forEach((userId, i) => {
      const value = values[i];
      if (typeof value === 'string') found.set(userId, value);
    });
    return found;
  }

  async remove(roomId: string): Promise<MemberChange> {
    const keys = [this.#key(roomId), this.#roomsKey];
    return change(await this.link.call((redis) => redis.eval(REMOVE_SCRIPT, { keys, arguments: [roomId] })));
  }

  get #roomsKey(): string {
    return `${this.prefix}user-rooms`;
  }

  #key(roomId: string): string {
    return `${this.prefix}room-members:${roomId}`;
  }
}

/** The script's answer; Lua's cjson writes an empty list as `{}`. */
function change(answer: unknown): MemberChange {
  const { entered, left } = JSON.parse(String(answer)) as { entered?: unknown; left?: unknown };
  return { entered: Array.isArray(entered) ? entered : [], left: Array.isArray(left) ? left : [] };
}
