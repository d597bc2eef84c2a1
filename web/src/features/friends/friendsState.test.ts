import type { FriendRequest, SentFriendRequest, User, UserSummary } from '@voice/protocol';
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

function summary(id: string, change: Partial<UserSummary> = {}): UserSummary {
  return { id, username: id, display_name: null, avatar_url: null, ...change };
}

function sentTo(toId: string): SentFriendRequest {
  return { id: `req-to-${toId}`, to: summary(toId), created_at: '2026-11-21T10:00:00.000Z' };
}

const replay = (actions: FriendsAction[], from: FriendsState = initialFriendsState) =>
  actions.reduce(friendsReducer, from);

const loaded = (friends: User[], requests: FriendRequest[] = [], sent: SentFriendRequest[] = []) =>
  replay([{ type: 'load/succeeded', friends, requests, sent }]);

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

  it('shows which room a friend is in, named or private, and a call above it', () => {
    let state = loaded([user('ann', { is_online: true, room: null }), user('bob')]);
    state = friendsReducer(state, { type: 'friend/room', userId: 'ann', room: { id: 'r1', name: 'Lounge' } });
    expect(state.friends[0]?.room).toEqual({ id: 'r1', name: 'Lounge' });
    expect(presenceOf(state.friends[0] as User)).toBe('in-room');

    state = friendsReducer(state, { type: 'friend/room', userId: 'ann', room: { id: 'r2', name: null } });
    expect(state.friends[0]?.room).toEqual({ id: 'r2', name: null });
    state = friendsReducer(state, { type: 'friend/call-status', userId: 'ann', isInCall: true });
    expect(presenceOf(state.friends[0] as User)).toBe('in-call');
    state = friendsReducer(state, { type: 'friend/call-status', userId: 'ann', isInCall: false });
    state = friendsReducer(state, { type: 'friend/room', userId: 'ann', room: null });
    expect(presenceOf(state.friends[0] as User)).toBe('online');
    // Unknown presence stays unknown, wherever they are.
    expect(presenceOf(user('cy', { is_online: true, room: { id: 'r1', name: 'Lounge' } }), false)).toBe(
      'unknown',
    );

    expect(friendsReducer(state, { type: 'friend/room', userId: 'zed', room: null })).toBe(state);
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

  it('lists sent requests once, newest first, until accepted', () => {
    let state = loaded([], [], [sentTo('bob')]);
    const at = '2026-11-21T12:00:00Z';
    state = friendsReducer(state, { type: 'request/sent', to: summary('dan', { display_name: 'Dan' }), at });
    state = friendsReducer(state, { type: 'request/sent', to: summary('dan'), at });
    expect(state.sent.map((r) => r.to)).toEqual([summary('dan', { display_name: 'Dan' }), summary('bob')]);
    state = friendsReducer(state, { type: 'friend/added', user: user('dan') });
    expect(state.sent.map((r) => r.to.id)).toEqual(['bob']);
    // The server's list replaces ours on every load.
    state = friendsReducer(state, { type: 'load/succeeded', friends: [user('dan')], requests: [], sent: [] });
    expect(state.sent).toEqual([]);
  });

  it('drops a cancelled request, on either side', () => {
    // We are Ann: Bob asked us, we asked Cat.
    let state = loaded([], [request('bob')], [sentTo('cat')]);
    // friend-request-cancelled to the recipient names the sender; to the sender, the recipient.
    state = friendsReducer(state, { type: 'request/resolved', userId: 'bob' });
    expect(state.requests).toEqual([]);
    state = friendsReducer(state, { type: 'request/resolved', userId: 'cat' });
    expect(state.sent).toEqual([]);
    expect(friendsReducer(state, { type: 'request/resolved', userId: 'cat' })).toBe(state);
  });

  it('a rejected request turns the search result back into "Add"', () => {
    let state = loaded([], [], [sentTo('cat')]);
    expect(relationshipOf(state, 'cat', 'request_sent')).toBe('request_sent');
    // friend-request-rejected to the sender names the person who rejected.
    state = friendsReducer(state, { type: 'request/resolved', userId: 'cat' });
    expect(state.sent).toEqual([]);
    expect(relationshipOf(state, 'cat', 'request_sent')).toBe('none');
  });

  it('renames friends and people in either request list on profile-updated', () => {
    let state = loaded([user('ann', { display_name: 'Ann' })], [request('bob')], [sentTo('cat')]);
    for (const [userId, displayName] of [
      ['ann', 'Annie'],
      ['bob', 'Bobby'],
      ['cat', 'Kitty'],
    ] as const) {
      state = friendsReducer(state, { type: 'friend/profile', userId, displayName });
    }
    expect(state.friends[0]?.display_name).toBe('Annie');
    expect(state.requests[0]?.from.display_name).toBe('Bobby');
    expect(state.sent[0]?.to.display_name).toBe('Kitty');
    // Anybody else: nothing changes.
    expect(friendsReducer(state, { type: 'friend/profile', userId: 'zed', displayName: 'Z' })).toBe(state);
  });

  it('shows presence as unknown from a lost socket until a load after the reconnection', () => {
    let state = loaded([user('ann', { is_online: true }), user('bob')]);
    expect(state.presenceKnown).toBe(true);
    state = friendsReducer(state, { type: 'socket/down' });
    expect(state.presenceKnown).toBe(false);
    expect(state.friends.map((f) => presenceOf(f, state.presenceKnown))).toEqual(['unknown', 'unknown']);
    // A load while still down is a snapshot that goes stale unseen.
    state = friendsReducer(state, { type: 'load/succeeded', friends: state.friends, requests: [], sent: [] });
    expect(state.presenceKnown).toBe(false);
    state = friendsReducer(state, { type: 'socket/up' });
    expect(state.presenceKnown).toBe(false);
    state = friendsReducer(state, {
      type: 'load/succeeded',
      friends: [user('ann'), user('bob', { is_online: true })],
      requests: [],
      sent: [],
    });
    expect(state.presenceKnown).toBe(true);
    expect(state.friends.map((f) => presenceOf(f, state.presenceKnown))).toEqual(['offline', 'online']);
  });

  it('shows presence the server could not tell as unknown', () => {
    expect(presenceOf(user('ann', { is_online: null, isInCall: null }))).toBe('unknown');
    expect(presenceOf(user('ann', { is_online: true, isInCall: null }))).toBe('online');
  });

  it('tracks actions in flight per user', () => {
    let state = friendsReducer(initialFriendsState, { type: 'busy', userId: 'ann', busy: true });
    state = friendsReducer(state, { type: 'busy', userId: 'ann', busy: true });
    expect(state.busy).toEqual(['ann']);
    state = friendsReducer(state, { type: 'busy', userId: 'ann', busy: false });
    expect(state.busy).toEqual([]);
  });

  it('starts over on reset (signed out), loading again for the next account', () => {
    const state = replay(
      [{ type: 'socket/down' }, { type: 'busy', userId: 'ann', busy: true }],
      loaded([user('ann')], [request('bob')], [sentTo('cid')]),
    );
    expect(friendsReducer(state, { type: 'reset' })).toEqual(initialFriendsState);
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

  it('sorts by name alone while presence is unknown', () => {
    const sorted = sortFriends([user('zoe', { is_online: true }), user('adam')], 'en', false);
    expect(sorted.map((f) => f.id)).toEqual(['adam', 'zoe']);
  });
});

describe('relationshipOf()', () => {
  it('prefers the live state over an older search answer', () => {
    const state = loaded([user('ann')], [request('bob')], [sentTo('cat')]);
    expect(relationshipOf(state, 'ann', 'none')).toBe('friend');
    expect(relationshipOf(state, 'bob', 'none')).toBe('request_received');
    expect(relationshipOf(state, 'cat', 'none')).toBe('request_sent');
    // Removed since the search, or a request withdrawn, rejected or cancelled since.
    expect(relationshipOf(state, 'dan', 'friend')).toBe('none');
    expect(relationshipOf(state, 'eve', 'request_received')).toBe('none');
    expect(relationshipOf(state, 'fay', 'request_sent')).toBe('none');
  });

  it('trusts the search answer until the lists are loaded', () => {
    expect(relationshipOf(initialFriendsState, 'ann', 'friend')).toBe('friend');
  });
});
