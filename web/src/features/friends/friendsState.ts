/**
 * The friends view-model's state: friends with presence, incoming requests, and what
 * this tab has asked for. A pure reducer, so every socket event and REST answer is a
 * plain action that tests can replay.
 */
import type { FriendRequest, Relationship, User, UserSummary } from '@voice/protocol';

/** What a friend's badge says. */
export type Presence = 'online' | 'in-call' | 'offline';

export interface FriendsState {
  /** 'loading' only until the first answer; later reloads keep the lists on screen. */
  status: 'loading' | 'ready' | 'error';
  friends: User[];
  requests: FriendRequest[];
  /** Users this tab asked to be friends since it opened (the API lists no outgoing requests). */
  sent: string[];
  /** Users with an action of ours in flight, so their buttons can show it. */
  busy: string[];
}

export type FriendsAction =
  | { type: 'load/started' }
  | { type: 'load/succeeded'; friends: User[]; requests: FriendRequest[] }
  | { type: 'load/failed' }
  | { type: 'friend/online'; userId: string }
  | { type: 'friend/offline'; userId: string; lastSeen: string }
  | { type: 'friend/avatar'; userId: string; avatarUrl: string | null }
  | { type: 'friend/call-status'; userId: string; isInCall: boolean }
  | { type: 'friend/added'; user: User }
  | { type: 'friend/removed'; userId: string }
  | { type: 'request/received'; from: UserSummary; at: string }
  | { type: 'request/resolved'; userId: string }
  | { type: 'request/sent'; userId: string }
  | { type: 'busy'; userId: string; busy: boolean };

export const initialFriendsState: FriendsState = {
  status: 'loading',
  friends: [],
  requests: [],
  sent: [],
  busy: [],
};

const without = (ids: string[], id: string) => (ids.includes(id) ? ids.filter((x) => x !== id) : ids);

function updateFriend(state: FriendsState, userId: string, change: Partial<User>): FriendsState {
  if (!state.friends.some((f) => f.id === userId)) return state;
  return { ...state, friends: state.friends.map((f) => (f.id === userId ? { ...f, ...change } : f)) };
}

export function friendsReducer(state: FriendsState, action: FriendsAction): FriendsState {
  switch (action.type) {
    case 'load/started':
      return state.status === 'error' ? { ...state, status: 'loading' } : state;
    case 'load/succeeded': {
      const friendIds = new Set(action.friends.map((f) => f.id));
      return {
        ...state,
        status: 'ready',
        friends: action.friends,
        requests: action.requests,
        sent: state.sent.filter((id) => !friendIds.has(id)),
      };
    }
    case 'load/failed':
      // A failed background refresh keeps what is on screen.
      return state.status === 'ready' ? state : { ...state, status: 'error' };
    case 'friend/online':
      return updateFriend(state, action.userId, { is_online: true });
    case 'friend/offline':
      return updateFriend(state, action.userId, { is_online: false, last_seen: action.lastSeen });
    case 'friend/avatar': {
      const next = updateFriend(state, action.userId, { avatar_url: action.avatarUrl });
      if (!state.requests.some((r) => r.from.id === action.userId)) return next;
      return {
        ...next,
        requests: state.requests.map((r) =>
          r.from.id === action.userId ? { ...r, from: { ...r.from, avatar_url: action.avatarUrl } } : r,
        ),
      };
    }
    case 'friend/call-status':
      return updateFriend(state, action.userId, { isInCall: action.isInCall });
    case 'friend/added': {
      const { user } = action;
      const known = state.friends.some((f) => f.id === user.id);
      return {
        ...state,
        friends: known ? state.friends.map((f) => (f.id === user.id ? user : f)) : [...state.friends, user],
        requests: state.requests.filter((r) => r.from.id !== user.id),
        sent: without(state.sent, user.id),
      };
    }
    case 'friend/removed':
      if (!state.friends.some((f) => f.id === action.userId)) return state;
      return { ...state, friends: state.friends.filter((f) => f.id !== action.userId) };
    case 'request/received': {
      const { from } = action;
      if (state.requests.some((r) => r.from.id === from.id)) return state;
      // The real id arrives with the next reload; nothing here depends on it.
      const request: FriendRequest = { id: `live:${from.id}`, from, created_at: action.at };
      return { ...state, requests: [request, ...state.requests] };
    }
    case 'request/resolved':
      if (!state.requests.some((r) => r.from.id === action.userId)) return state;
      return { ...state, requests: state.requests.filter((r) => r.from.id !== action.userId) };
    case 'request/sent':
      return state.sent.includes(action.userId) ? state : { ...state, sent: [...state.sent, action.userId] };
    case 'busy':
      if (action.busy)
        return state.busy.includes(action.userId)
          ? state
          : { ...state, busy: [...state.busy, action.userId] };
      return { ...state, busy: without(state.busy, action.userId) };
  }
}

export function presenceOf(user: Pick<User, 'is_online' | 'isInCall'>): Presence {
  if (!user.is_online) return 'offline';
  return user.isInCall ? 'in-call' : 'online';
}

/** The name to show: the display name, else the username. */
export const nameOf = (user: Pick<User, 'display_name' | 'username'>) => user.display_name || user.username;

const PRESENCE_ORDER: Record<Presence, number> = { 'in-call': 0, online: 0, offline: 1 };

/** Online and in-call friends first, then offline ones; each group by name. */
export function sortFriends(friends: readonly User[], locale?: string): User[] {
  const collator = new Intl.Collator(locale, { sensitivity: 'base' });
  return [...friends].sort(
    (a, b) =>
      PRESENCE_ORDER[presenceOf(a)] - PRESENCE_ORDER[presenceOf(b)] || collator.compare(nameOf(a), nameOf(b)),
  );
}

/**
 * How a search result relates to us now: the search answer may be older than the
 * live state (a request accepted, a friend removed since), so the state wins.
 */
export function relationshipOf(state: FriendsState, userId: string, reported: Relationship): Relationship {
  if (state.friends.some((f) => f.id === userId)) return 'friend';
  if (state.requests.some((r) => r.from.id === userId)) return 'request_received';
  if (state.sent.includes(userId)) return 'request_sent';
  if (state.status !== 'ready') return reported;
  // Our lists are complete: a 'friend' or 'request_received' that is not in them is gone.
  return reported === 'request_sent' ? 'request_sent' : 'none';
}
