/**
 * Room members in Redis, shared by every API process: `room-members:<roomId>` holds the
 * RoomMembers JSON a media server last published, and the hash `user-rooms` the room each
 * person went into last. Every process hears the same bus message and stores the same
 * value; the script compares with what is stored, so only the first store sees a change.
 * `room-seats:<roomId>` is a sorted set of the people holding a seat on their way in, scored
 * by when the hold lapses: one script counts and holds, so no two processes give the last
 * seat twice, and storing the members lets the seats of those now in (or gone) go.
 */
import type { RedisLink } from '@voice/bus';
import type { RoomMembers } from '@voice/protocol';
import type { MemberChange, MemberStore, SeatRequest } from './MemberStore.ts';

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
// Those in the room, and those who left it, hold no seat in KEYS[3] any more.
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
for _, p in ipairs(members.peers) do redis.call('ZREM', KEYS[3], p) end
for _, p in ipairs(before) do redis.call('ZREM', KEYS[3], p) end
return record(members.roomId, before, members.peers)`;

// Holds a seat in KEYS[2] for ARGV[1] until ARGV[5] if the members in KEYS[1] (when their server,
// stored with them, is one of ARGV[6]) and the seats others hold unlapsed at ARGV[4] leave one of
// ARGV[2] free, ARGV[3] at least counting as taken. 1 when held (or a member already), 0 when full.
const RESERVE_SCRIPT = `
local live = {}
for _, id in ipairs(cjson.decode(ARGV[6])) do live[id] = true end
local inside, taken = {}, 0
local stored = redis.call('GET', KEYS[1])
if stored then
  local members = cjson.decode(stored)
  if live[members.serverId] then
    for _, p in ipairs(members.peers) do
      inside[p] = true
      taken = taken + 1
    end
  end
end
if inside[ARGV[1]] then return 1 end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[4])
local mine = false
for _, holder in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  if holder == ARGV[1] then mine = true elseif not inside[holder] then taken = taken + 1 end
end
if not mine and math.max(taken, tonumber(ARGV[3])) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
redis.call('PEXPIREAT', KEYS[2], ARGV[5])
return 1`;

const REMOVE_SCRIPT = `${RECORD}
redis.call('DEL', KEYS[3])
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
    const keys = [this.#key(members.roomId), this.#roomsKey, this.#seatsKey(members.roomId)];
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
    const keys = [this.#key(roomId), this.#roomsKey, this.#seatsKey(roomId)];
    return change(await this.link.call((redis) => redis.eval(REMOVE_SCRIPT, { keys, arguments: [roomId] })));
  }

  async reserveSeat(seat: SeatRequest): Promise<boolean> {
    const keys = [this.#key(seat.roomId), this.#seatsKey(seat.roomId)];
    const numbers = [seat.capacity, seat.floor, seat.nowMs, seat.untilMs].map(String);
    const args = [seat.userId, ...numbers, JSON.stringify(seat.liveServers)];
    const held = await this.link.call((redis) => redis.eval(RESERVE_SCRIPT, { keys, arguments: args }));
    return held === 1;
  }

  async releaseSeat(roomId: string, userId: string): Promise<void> {
    await this.link.call((redis) => redis.zRem(this.#seatsKey(roomId), userId));
  }

  #seatsKey(roomId: string): string {
    return `${this.prefix}room-seats:${roomId}`;
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
