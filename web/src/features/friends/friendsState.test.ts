import type { FriendRequest, User } from '@voice/protocol';
import { describe, expect, it } from 'vitest';
import {
  type FriendsAction,
  type FriendsState,
  friendsReducer,
  initialFriendsState,
  presenceOf,
  relationshipOf,
  sortFriends,
} from './friendsState.ts';

function user(id: string, change: Partial<User> = {}): User {
  return {
    id,
    username: id,
    display_name: null,
    avatar_url: null,
    language: 'en',
    is_online: false,
    last_seen: null,
    isInCall: false,
    ...change,
  };
}

function request(fromId: string): FriendRequest {
  return {
    id: `req-${fromId}`,
    from: { id: fromId, username: fromId, display_name: null, avatar_url: null },
    created_at: '2026-11-21T10:00:00.000Z',
  };
}

const replay = (actions: FriendsAction[], from: FriendsState = initialFriendsState) =>
  actions.reduce(friendsReducer, from);

const loaded = (friends: User[], requests: FriendRequest[] = []) =>
  replay([{ type: 'load/succeeded', friends, requests }]);

describe('friendsReducer', () => {
  it('loads, fails on the first load only, and keeps the lists through a failed refresh', () => {
    expect(replay([{ type: 'load/failed' }]).status).toBe('error');
    expect(replay([{ type: 'load/failed' }, { type: 'load/started' }]).status).toBe('loading');

    const state = loaded([user('ann')], [request('bob')]);
    expect(state.status).toBe('ready');
    const refreshed = replay([{ type: 'load/started' }, { type: 'load/failed' }], state);
    expect(refreshed).toBe(state);
  });

  it('flips presence on friend-online and friend-offline', () => {
    let state = loaded([user('ann'), user('bob')]);
    state = friendsReducer(state, { type: 'friend/online', userId: 'ann' });
    expect(state.friends[0]?.is_online).toBe(true);
    expect(presenceOf(state.friends[0] as User)).toBe('online');

    state = friendsReducer(state, { type: 'friend/call-status', userId: 'ann', isInCall: true });
    expect(presenceOf(state.friends[0] as User)).toBe('in-call');

    state = friendsReducer(state, {
      type: 'friend/offline',
      userId: 'ann',
      lastSeen: '2026-11-21T12:00:00Z',
    });
    expect(state.friends[0]).toMatchObject({ is_online: false, last_seen: '2026-11-21T12:00:00Z' });
    expect(presenceOf(state.friends[0] as User)).toBe('offline');
    expect(state.friends[1]).toEqual(user('bob'));
  });

  it('ignores events about people who are not friends', () => {
    const state = loaded([user('ann')]);
    expect(friendsReducer(state, { type: 'friend/online', userId: 'zed' })).toBe(state);
    expect(friendsReducer(state, { type: 'friend/removed', userId: 'zed' })).toBe(state);
  });

  it('changes avatars of friends and of pending requests', () => {
    let state = loaded([user('ann')], [request('bob')]);
    state = friendsReducer(state, { type: 'friend/avatar', userId: 'ann', avatarUrl: '/a.png' });
    state = friendsReducer(state, { type: 'friend/avatar', userId: 'bob', avatarUrl: '/b.png' });
    expect(state.friends[0]?.avatar_url).toBe('/a.png');
    expect(state.requests[0]?.from.avatar_url).toBe('/b.png');
  });

  it('adds a received request once, newest first', () => {
    const from = { id: 'cat', username: 'cat', display_name: 'Cat', avatar_url: null };
    let state = loaded([], [request('bob')]);
    state = friendsReducer(state, { type: 'request/received', from, at: '2026-11-21T12:00:00Z' });
    state = friendsReducer(state, { type: 'request/received', from, at: '2026-11-21T12:00:01Z' });
    expect(state.requests.map((r) => r.from.id)).toEqual(['cat', 'bob']);
  });

  it('turns an accepted request into a friend', () => {
    let state = loaded([], [request('bob')]);
    state = friendsReducer(state, { type: 'friend/added', user: user('bob', { is_online: true }) });
    expect(state.requests).toEqual([]);
    expect(state.friends.map((f) => f.id)).toEqual(['bob']);
    // The same news twice (event and reload) leaves one entry.
    state = friendsReducer(state, { type: 'friend/added', user: user('bob') });
    expect(state.friends).toHaveLength(1);
  });

  it('removes resolved requests and removed friends', () => {
    let state = loaded([user('ann')], [request('bob')]);
    state = friendsReducer(state, { type: 'request/resolved', userId: 'bob' });
    state = friendsReducer(state, { type: 'friend/removed', userId: 'ann' });
    expect(state.requests).toEqual([]);
    expect(state.friends).toEqual([]);
  });

  it('remembers sent requests until they become friendships', () => {
    let state = loaded([]);
    state = friendsReducer(state, { type: 'request/sent', userId: 'dan' });
    state = friendsReducer(state, { type: 'request/sent', userId: 'dan' });
    expect(state.sent).toEqual(['dan']);
    state = friendsReducer(state, { type: 'load/succeeded', friends: [user('dan')], requests: [] });
    expect(state.sent).toEqual([]);
  });

  it('tracks actions in flight per user', () => {
    let state = friendsReducer(initialFriendsState, { type: 'busy', userId: 'ann', busy: true });
    state = friendsReducer(state, { type: 'busy', userId: 'ann', busy: true });
    expect(state.busy).toEqual(['ann']);
    state = friendsReducer(state, { type: 'busy', userId: 'ann', busy: false });
    expect(state.busy).toEqual([]);
  });
});

describe('sortFriends()', () => {
  it('puts online and in-call friends first, each group by name', () => {
    const sorted = sortFriends(
      [
        user('zoe', { is_online: true }),
        user('adam'),
        user('mia', { is_online: true, isInCall: true }),
        user('bea', { display_name: 'Beatrice' }),
      ],
      'en',
    );
    expect(sorted.map((f) => f.id)).toEqual(['mia', 'zoe', 'adam', 'bea']);
  });
});

describe('relationshipOf()', () => {
  it('prefers the live state over an older search answer', () => {
    let state = loaded([user('ann')], [request('bob')]);
    state = friendsReducer(state, { type: 'request/sent', userId: 'cat' });
    expect(relationshipOf(state, 'ann', 'none')).toBe('friend');
    expect(relationshipOf(state, 'bob', 'none')).toBe('request_received');
    expect(relationshipOf(state, 'cat', 'none')).toBe('request_sent');
    // Removed since the search, or a request rejected since.
    expect(relationshipOf(state, 'dan', 'friend')).toBe('none');
    expect(relationshipOf(state, 'eve', 'request_received')).toBe('none');
    expect(relationshipOf(state, 'fay', 'request_sent')).toBe('request_sent');
  });

  it('trusts the search answer until the lists are loaded', () => {
    expect(relationshipOf(initialFriendsState, 'ann', 'friend')).toBe('friend');
  });
});
