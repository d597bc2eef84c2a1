import type { Room } from '@voice/protocol';
import { describe, expect, it } from 'vitest';
import { matchesQuery, withRoomRemoved, withRoomUpdated } from './roomDirectoryState.ts';

function room(id: string, overrides: Partial<Room> = {}): Room {
  return {
    id,
    name: `Room ${id}`,
    description: null,
    type: 'public',
    hasPassword: false,
    locked: false,
    admin: { id: 'admin', username: 'admin', display_name: null, avatar_url: null },
    memberCount: 0,
    maxParticipants: 25,
    loudest: 3,
    stage: false,
    participants: [],
    moderators: [],
    created_at: '2026-11-20T10:00:00.000Z',
    ...overrides,
  };
}

const ids = (rooms: readonly Room[]) => rooms.map((r) => r.id);

describe('the live room list', () => {
  const list = [
    room('c', { created_at: '2026-11-22T10:00:00.000Z' }),
    room('b', { created_at: '2026-11-21T10:00:00.000Z' }),
    room('a', { created_at: '2026-11-20T10:00:00.000Z' }),
  ];

  it('replaces a known room in place, with its new members', () => {
    const next = withRoomUpdated(list, room('b', { created_at: list[1]?.created_at, memberCount: 3 }), '');
    expect(ids(next)).toEqual(['c', 'b', 'a']);
    expect(next[1]?.memberCount).toBe(3);
  });

  it('adds a new room where the server lists it: newest first, then by id', () => {
    expect(ids(withRoomUpdated(list, room('d', { created_at: '2026-11-23T10:00:00.000Z' }), ''))).toEqual([
      'd',
      'c',
      'b',
      'a',
    ]);
    expect(ids(withRoomUpdated(list, room('aa', { created_at: '2026-11-20T10:00:00.000Z' }), ''))).toEqual([
      'c',
      'b',
      'a',
      'aa',
    ]);
    expect(ids(withRoomUpdated(list, room('0', { created_at: '2026-11-20T10:00:00.000Z' }), ''))).toEqual([
      'c',
      'b',
      '0',
      'a',
    ]);
    expect(ids(withRoomUpdated([], room('x'), ''))).toEqual(['x']);
  });

  it('keeps the search: a room that does not match is not added, and leaves when renamed away', () => {
    const searched = [room('k', { name: 'Kitchen talk' })];
    expect(ids(withRoomUpdated(searched, room('g', { name: 'Garden' }), 'kitchen'))).toEqual(['k']);
    expect(
      ids(
        withRoomUpdated(
          searched,
          room('n', { name: 'NEW KITCHEN', created_at: '2026-11-23T10:00:00.000Z' }),
          ' kitchen ',
        ),
      ),
    ).toEqual(['n', 'k']);
    expect(ids(withRoomUpdated(searched, room('k', { name: 'Cellar' }), 'kitchen'))).toEqual([]);
  });

  it('removes a room, and leaves the list as it is for one it does not show', () => {
    expect(ids(withRoomRemoved(list, 'b'))).toEqual(['c', 'a']);
    expect(withRoomRemoved(list, 'zzz')).toBe(list);
  });

  it('matches names as the server searches them', () => {
    expect(matchesQuery('Évening Lounge', 'lounge')).toBe(true);
    expect(matchesQuery('Anything', '   ')).toBe(true);
    expect(matchesQuery('Lounge', 'bar')).toBe(false);
  });
});
