/**
 * The friends view-model: loads friends and requests, keeps them live from the app
 * socket, and runs the friend actions. Components only read it and call its actions.
 * FriendsProvider runs it once for the app, above the pages; pages read it with
 * useFriendsContext().
 */
import type { User, UserSummary } from '@voice/protocol';
import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type ErrorMessage, errorMessage, hasErrorCode } from '../../api/errorMessage.ts';
import { friendsApi } from '../../api/friends.ts';
import { currentLanguage } from '../../i18n/i18n.ts';
import { useAppSocket, useSocketEvent, useSocketOpen, useSocketStatus } from '../../socket/useAppSocket.ts';
import {
  type FriendsState,
  friendsReducer,
  initialFriendsState,
  presenceOf,
  sortFriends,
} from './friendsState.ts';

/** How long the "new friend request" toast stays up. */
const ARRIVAL_TOAST_MS = 6000;

/** A request that just arrived over the socket, for the toast. */
export interface Arrival {
  from: UserSummary;
  /** Changes with every arrival, so the same sender twice still re-announces. */
  key: number;
}

export interface FriendsViewModel {
  state: FriendsState;
  /** Friends, online first. */
  friends: User[];
  /** Online and in-call friends (none while presence is unknown). */
  online: User[];
  /** False while our socket is down or catching up: presence badges say "unknown". */
  presenceKnown: boolean;
  /** Translation key of the last failed action, until dismissed or the next action. */
  actionError: ErrorMessage | null;
  dismissError(): void;
  arrival: Arrival | null;
  dismissArrival(): void;
  reload(): void;
  isBusy(userId: string): boolean;
  sendRequest(to: UserSummary): Promise<void>;
  /** Withdraws our pending request to `userId`. */
  cancelRequest(userId: string): Promise<void>;
  accept(userId: string): Promise<void>;
  reject(userId: string): Promise<void>;
  /** Resolves true once the friend is gone (also when they already were). */
  remove(userId: string): Promise<boolean>;
}

/** The view-model of `userId`'s friends; inert (nothing loaded, nothing kept) while null. */
export function useFriends(userId: string | null): FriendsViewModel {
  const { i18n } = useTranslation();
  const socket = useAppSocket();
  const socketStatus = useSocketStatus();
  const [state, dispatch] = useReducer(friendsReducer, initialFriendsState);
  const [actionError, setActionError] = useState<ErrorMessage | null>(null);
  const [arrival, setArrival] = useState<Arrival | null>(null);
  const loadRef = useRef<AbortController | null>(null);

  // A newer load replaces an older one, so a slow answer never overwrites a fresh one.
  const reload = useCallback(() => {
    loadRef.current?.abort();
    const controller = new AbortController();
    loadRef.current = controller;
    dispatch({ type: 'load/started' });
    Promise.all([
      friendsApi.friends(controller.signal),
      friendsApi.requests(controller.signal),
      friendsApi.sentRequests(controller.signal),
    ]).then(
      ([{ friends }, { requests }, { requests: sent }]) => {
        if (!controller.signal.aborted) dispatch({ type: 'load/succeeded', friends, requests, sent });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        console.warn('Failed to load friends', error);
        dispatch({ type: 'load/failed' });
      },
    );
  }, []);

  // Signed in: load. Signed out (or another account): forget the last account's lists.
  useEffect(() => {
    if (!userId) return;
    reload();
    return () => {
      loadRef.current?.abort();
      dispatch({ type: 'reset' });
      setArrival(null);
      setActionError(null);
    };
  }, [reload, userId]);

  // Whatever happened while the socket was away (or before it first opened) is in a fresh load.
  useSocketOpen(() => {
    dispatch({ type: 'socket/up' });
    reload();
  });

  // While the socket is down no presence event can reach us: the last state is not shown as current.
  useEffect(() => {
    if (socketStatus === 'reconnecting' || socketStatus === 'closed') dispatch({ type: 'socket/down' });
  }, [socketStatus]);

  useSocketEvent('friend-online', ({ userId }) => dispatch({ type: 'friend/online', userId }));
  useSocketEvent('friend-offline', ({ userId, last_seen }) =>
    dispatch({ type: 'friend/offline', userId, lastSeen: last_seen }),
  );
  useSocketEvent('avatar-updated', ({ userId, avatar_url }) =>
    dispatch({ type: 'friend/avatar', userId, avatarUrl: avatar_url }),
  );
  useSocketEvent('friend-call-status-changed', ({ userId, isInCall }) =>
    dispatch({ type: 'friend/call-status', userId, isInCall }),
  );
  useSocketEvent('friend-room-changed', ({ userId, room }) =>
    dispatch({ type: 'friend/room', userId, room }),
  );
  useSocketEvent('profile-updated', ({ userId, display_name }) =>
    dispatch({ type: 'friend/profile', userId, displayName: display_name }),
  );
  useSocketEvent('friend-request-received', ({ from }) => {
    dispatch({ type: 'request/received', from, at: new Date().toISOString() });
    setArrival((previous) => ({ from, key: (previous?.key ?? 0) + 1 }));
  });
  useSocketEvent('friend-request-accepted', ({ user }) => {
    dispatch({ type: 'friend/added', user });
    reload();
  });
  useSocketEvent('friend-removed', ({ userId }) => dispatch({ type: 'friend/removed', userId }));
  // Both carry the other person of the request, whichever side of it we are on.
  useSocketEvent('friend-request-rejected', ({ userId }) => dispatch({ type: 'request/resolved', userId }));
  useSocketEvent('friend-request-cancelled', ({ userId }) => dispatch({ type: 'request/resolved', userId }));
  useSocketEvent('friend-request-sent', ({ to, created_at }) =>
    dispatch({ type: 'request/sent', to, at: created_at }),
  );

  useEffect(() => {
    if (!arrival) return;
    const timer = setTimeout(() => setArrival(null), ARRIVAL_TOAST_MS);
    return () => clearTimeout(timer);
  }, [arrival]);

  /** Runs one action for `userId`, marking them busy; false when it failed. */
  const run = useCallback(async (userId: string, action: () => Promise<void>): Promise<boolean> => {
    setActionError(null);
    dispatch({ type: 'busy', userId, busy: true });
    try {
      await action();
      return true;
    } catch (error) {
      console.warn('Friend action failed', error);
      setActionError(errorMessage(error, currentLanguage()));
      return false;
    } finally {
      dispatch({ type: 'busy', userId, busy: false });
    }
  }, []);

  const sendRequest = useCallback(
    async (to: UserSummary) => {
      await run(to.id, async () => {
        try {
          const { status } = await friendsApi.sendRequest(to.id);
          // 'friends': they had asked us already, and the server made us friends on the spot.
          if (status === 'pending') dispatch({ type: 'request/sent', to, at: new Date().toISOString() });
        } catch (error) {
          if (!hasErrorCode(error, 'ALREADY_FRIENDS')) throw error;
        }
        // A load that started before the request would otherwise answer without it.
        reload();
      });
    },
    [run, reload],
  );

  const cancelRequest = useCallback(
    async (userId: string) => {
      await run(userId, async () => {
        try {
          await friendsApi.cancel(userId);
        } catch (error) {
          // Gone already (accepted, rejected or cancelled elsewhere): a reload tells which.
          if (!hasErrorCode(error, 'FRIEND_REQUEST_NOT_FOUND')) throw error;
        }
        dispatch({ type: 'request/resolved', userId });
        reload();
      });
    },
    [run, reload],
  );

  const accept = useCallback(
    async (userId: string) => {
      await run(userId, async () => {
        try {
          // The spec sends accept-friend-request over the socket; REST does the same when it is down.
          if (socket?.status === 'connected') await socket.request('accept-friend-request', { userId });
          else await friendsApi.accept(userId);
        } catch (error) {
          // Gone already (withdrawn, or handled in another tab): not pending any more either way.
          if (hasErrorCode(error, 'FRIEND_REQUEST_NOT_FOUND')) {
            dispatch({ type: 'request/resolved', userId });
            reload();
          }
          throw error;
        }
        dispatch({ type: 'request/resolved', userId });
        reload();
      });
    },
    [run, reload, socket],
  );

  const reject = useCallback(
    async (userId: string) => {
      await run(userId, async () => {
        try {
          await friendsApi.reject(userId);
        } catch (error) {
          if (!hasErrorCode(error, 'FRIEND_REQUEST_NOT_FOUND')) throw error;
        }
        dispatch({ type: 'request/resolved', userId });
      });
    },
    [run],
  );

  const remove = useCallback(
    (userId: string) =>
      run(userId, async () => {
        try {
          await friendsApi.remove(userId);
        } catch (error) {
          if (!hasErrorCode(error, 'NOT_FRIENDS')) throw error;
        }
        dispatch({ type: 'friend/removed', userId });
      }),
    [run],
  );

  const language = i18n.resolvedLanguage ?? i18n.language;
  const { presenceKnown } = state;
  const friends = useMemo(
    () => sortFriends(state.friends, language, presenceKnown),
    [state.friends, language, presenceKnown],
  );
  const online = useMemo(
    () => friends.filter((f) => ['online', 'in-call', 'in-room'].includes(presenceOf(f, presenceKnown))),
    [friends, presenceKnown],
  );
  const busy = state.busy;
  const isBusy = useCallback((userId: string) => busy.includes(userId), [busy]);
  const dismissArrival = useCallback(() => setArrival(null), []);
  const dismissError = useCallback(() => setActionError(null), []);

  return {
    state,
    friends,
    online,
    presenceKnown,
    actionError,
    dismissError,
    arrival,
    dismissArrival,
    reload,
    isBusy,
    sendRequest,
    cancelRequest,
    accept,
    reject,
    remove,
  };
}
