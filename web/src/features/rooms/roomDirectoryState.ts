/**
 * The live room list's changes (`room-updated`, `room-removed`) applied to what is on
 * screen: pure, so the Rooms tab's list and its tests apply them alike.
 */
import type { Room } from '@voice/protocol';

/**
 * Whether `name` matches the search `query` as the server matches it (GET /rooms?query=:
 * the name contains it, letter case aside).
 */
export function matchesQuery(name: string, query: string): boolean {
  const wanted = query.trim().toLowerCase();
  return wanted === '' || name.toLowerCase().includes(wanted);
}

/**
 * `room` as it is now: replaced in place, or added where the server would list it (newest
 * first); dropped when it no longer matches the search.
 */
export function withRoomUpdated(rooms: readonly Room[], room: Room, query: string): readonly Room[] {
  const known = rooms.some((item) => item.id === room.id);
  if (!matchesQuery(room.name, query)) return known ? withRoomRemoved(rooms, room.id) : rooms;
  if (known) return rooms.map((item) => (item.id === room.id ? room : item));
  const at = rooms.findIndex((item) => listedBefore(room, item));
  return at === -1 ? [...rooms, room] : [...rooms.slice(0, at), room, ...rooms.slice(at)];
}

export function withRoomRemoved(rooms: readonly Room[], roomId: string): readonly Room[] {
  return rooms.some((item) => item.id === roomId) ? rooms.filter((item) => item.id !== roomId) : rooms;
}

/** The server's order: newest first, then by id. */
function listedBefore(a: Room, b: Room): boolean {
  if (a.created_at !== b.created_at) return Date.parse(a.created_at) > Date.parse(b.created_at);
  return a.id < b.id;
}
