/**
 * The friends view-model's state: friends with presence, incoming and sent requests, and
 * whether presence can be trusted. A pure reducer, so every socket event and REST answer
 * is a plain action that tests can replay.
 */
import type {
  FriendRequest,
  Relationship,
  SentFriendRequest,
  User,
  UserRoom,
  UserSummary,
} from '@voice/protocol';
import { nameOf, type Presence } from '../../lib/people.ts';

export interface FriendsState {
  /** 'loading' only until the first answer; later reloads keep the lists on screen. */
  status: 'loading' | 'ready' | 'error';
  friends: User[];
  /** Requests others sent us. */
  requests: FriendRequest[];
  /** Requests we sent that are still pending. */
  sent: SentFriendRequest[];
  /** Users with an action of ours in flight, so their buttons can show it. */
  busy: string[];
  /** Our app socket is down: no presence event can reach us. */
  offline: boolean;
  /**
   * Whether friends' presence is current: false from a lost socket until a load made
   * after it came back has answered (events were missed meanwhile).
   */
  presenceKnown: boolean;
}

export type FriendsAction =
  /** Signed out: nothing of the last account's lists stays for the next one. */
  | { type: 'reset' }
  | { type: 'load/started' }
  | { type: 'load/succeeded'; friends: User[]; requests: FriendRequest[]; sent: SentFriendRequest[] }
  | { type: 'load/failed' }
  | { type: 'socket/down' }
  | { type: 'socket/up' }
  | { type: 'friend/online'; userId: string }
  | { type: 'friend/offline'; userId: string; lastSeen: string }
  | { type: 'friend/avatar'; userId: string; avatarUrl: string | null }
  | { type: 'friend/profile'; userId: string; displayName: string | null }
  | { type: 'friend/call-status'; userId: string; isInCall: boolean }
  | { type: 'friend/room'; userId: string; room: UserRoom | null }
  | { type: 'friend/added'; user: User }
  | { type: 'friend/removed'; userId: string }
  | { type: 'request/received'; from: UserSummary; at: string }
  | { type: 'request/sent'; to: UserSummary; at: string }
  /** A request between us and `userId`, either way, is gone: accepted, rejected or cancelled. */
  | { type: 'request/resolved'; userId: string }
  | { type: 'busy'; userId: string; busy: boolean };

export const initialFriendsState: FriendsState = {
  status: 'loading',
  friends: [],
  requests: [],
  sent: [],
  busy: [],
  offline: false,
  presenceKnown: true,
};

const without = (ids: string[], id: string) => (ids.includes(id) ? ids.filter((x) => x !== id) : ids);

function updateFriend(state: FriendsState, userId: string, change: Partial<User>): FriendsState {
  if (!state.friends.some((f) => f.id === userId)) return state;
  return { ...state, friends: state.friends.map((f) => (f.id === userId ? { ...f, ...change } : f)) };
}

/** Applies `change` to `userId` wherever they appear: friends, incoming and sent requests. */
function updatePerson(state: FriendsState, userId: string, change: Partial<UserSummary>): FriendsState {
  const next = updateFriend(state, userId, change);
  const inRequests = state.requests.some((r) => r.from.id === userId);
  const inSent = state.sent.some((r) => r.to.id === userId);
  if (!inRequests && !inSent) return next;
  return {
    ...next,
    requests: inRequests
      ? state.requests.map((r) => (r.from.id === userId ? { ...r, from: { ...r.from, ...change } } : r))
      : state.requests,
    sent: inSent
      ? state.sent.map((r) => (r.to.id === userId ? { ...r, to: { ...r.to, ...change } } : r))
      : state.sent,
  };
}

/** Drops any pending request between us and `userId`, whichever way it went. */
function withoutRequests(state: FriendsState, userId: string): FriendsState {
  const inRequests = state.requests.some((r) => r.from.id === userId);
  const inSent = state.sent.some((r) => r.to.id === userId);
  if (!inRequests && !inSent) return state;
  return {
    ...state,
    requests: inRequests ? state.requests.filter((r) => r.from.id !== userId) : state.requests,
    sent: inSent ? state.sent.filter((r) => r.to.id !== userId) : state.sent,
  };
}

export function friendsReducer(state: FriendsState, action: FriendsAction): FriendsState {
  switch (action.type) {
    case 'reset':
      return initialFriendsState;
    case 'load/started':
      return state.status === 'error' ? { ...state, status: 'loading' } : state;
    case 'load/succeeded':
      return {
        ...state,
        status: 'ready',
        friends: action.friends,
        requests: action.requests,
        sent: action.sent,
        // A snapshot taken while the socket is down goes stale unseen: still unknown.
        presenceKnown: !state.offline,
      };
    case 'load/failed':
      // A failed background refresh keeps what is on screen.
      return state.status === 'ready' ? state : { ...state, status: 'error' };
    case 'socket/down':
      return state.offline ? state : { ...state, offline: true, presenceKnown: false };
    case 'socket/up':
      // Presence stays unknown until the reload that follows a reconnection answers.
      return state.offline ? { ...state, offline: false } : state;
    case 'friend/online':
      return updateFriend(state, action.userId, { is_online: true });
    case 'friend/offline':
      return updateFriend(state, action.userId, { is_online: false, last_seen: action.lastSeen });
    case 'friend/avatar':
      return updatePerson(state, action.userId, { avatar_url: action.avatarUrl });
    case 'friend/profile':
      return updatePerson(state, action.userId, { display_name: action.displayName });
    case 'friend/call-status':
      return updateFriend(state, action.userId, { isInCall: action.isInCall });
    case 'friend/room':
      return updateFriend(state, action.userId, { room: action.room });
    case 'friend/added': {
      const { user } = action;
      const known = state.friends.some((f) => f.id === user.id);
      return {
        ...withoutRequests(state, user.id),
        friends: known ? state.friends.map((f) => (f.id === user.id ? user : f)) : [...state.friends, user],
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
    case 'request/sent': {
      const { to } = action;
      if (state.sent.some((r) => r.to.id === to.id)) return state;
      const request: SentFriendRequest = { id: `live:${to.id}`, to, created_at: action.at };
      return { ...state, sent: [request, ...state.sent] };
    }
    case 'request/resolved':
      return withoutRequests(state, action.userId);
    case 'busy':
      if (action.busy)
        return state.busy.includes(action.userId)
          ? state
          : { ...state, busy: [...state.busy, action.userId] };
      return { ...state, busy: without(state.busy, action.userId) };
  }
}

/**
 * A friend's presence: `unknown` when `known` is false (see FriendsState.presenceKnown) or
 * when the server could not tell (is_online null).
 */
export function presenceOf(user: Pick<User, 'is_online' | 'isInCall' | 'room'>, known = true): Presence {
  if (!known || user.is_online === null) return 'unknown';
  if (!user.is_online) return 'offline';
  if (user.isInCall) return 'in-call';
  return user.room ? 'in-room' : 'online';
}

const PRESENCE_ORDER: Record<Presence, number> = {
  'in-call': 0,
  'in-room': 0,
  online: 0,
  offline: 1,
  unknown: 1,
};

/** Online, in-call and in-room friends first, then offline ones; each group by name. Unknown presence: by name. */
export function sortFriends(friends: readonly User[], locale?: string, presenceKnown = true): User[] {
  const collator = new Intl.Collator(locale, { sensitivity: 'base' });
  const rank = (user: User) => PRESENCE_ORDER[presenceOf(user, presenceKnown)];
  return [...friends].sort((a, b) => rank(a) - rank(b) || collator.compare(nameOf(a), nameOf(b)));
}

/**
 * How a search result relates to us now: the search answer may be older than the
 * live state (a request accepted, rejected or cancelled since), so the state wins.
 */
export function relationshipOf(state: FriendsState, userId: string, reported: Relationship): Relationship {
  if (state.friends.some((f) => f.id === userId)) return 'friend';
  if (state.requests.some((r) => r.from.id === userId)) return 'request_received';
  if (state.sent.some((r) => r.to.id === userId)) return 'request_sent';
  // Until our lists are loaded the answer is the best we know; after, anything not in them is gone.
  return state.status === 'ready' ? 'none' : reported;
}
