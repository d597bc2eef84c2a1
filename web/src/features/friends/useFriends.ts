/**
 * The friends view-model: loads friends and requests, keeps them live from the app
 * socket, and runs the friend actions. Components only read it and call its actions.
 */
import type { User, UserSummary } from '@voice/protocol';
import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessageKey, hasErrorCode } from '../../api/errorMessage.ts';
import { friendsApi } from '../../api/friends.ts';
import { useAppSocket, useSocketEvent, useSocketOpen } from '../../socket/useAppSocket.ts';
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
  /** Online and in-call friends. */
  online: User[];
  /** Translation key of the last failed action, until dismissed or the next action. */
  actionError: string | null;
  dismissError(): void;
  arrival: Arrival | null;
  dismissArrival(): void;
  reload(): void;
  isBusy(userId: string): boolean;
  sendRequest(userId: string): Promise<void>;
  accept(userId: string): Promise<void>;
  reject(userId: string): Promise<void>;
  /** Resolves true once the friend is gone (also when they already were). */
  remove(userId: string): Promise<boolean>;
}

export function useFriends(): FriendsViewModel {
  const { i18n } = useTranslation();
  const socket = useAppSocket();
  const [state, dispatch] = useReducer(friendsReducer, initialFriendsState);
  const [actionError, setActionError] = useState<string | null>(null);
  const [arrival, setArrival] = useState<Arrival | null>(null);
  const loadRef = useRef<AbortController | null>(null);

  // A newer load replaces an older one, so a slow answer never overwrites a fresh one.
  const reload = useCallback(() => {
    loadRef.current?.abort();
    const controller = new AbortController();
    loadRef.current = controller;
    dispatch({ type: 'load/started' });
    Promise.all([friendsApi.friends(controller.signal), friendsApi.requests(controller.signal)]).then(
      ([{ friends }, { requests }]) => {
        if (!controller.signal.aborted) dispatch({ type: 'load/succeeded', friends, requests });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        console.warn('Failed to load friends', error);
        dispatch({ type: 'load/failed' });
      },
    );
  }, []);

  useEffect(() => {
    reload();
    return () => loadRef.current?.abort();
  }, [reload]);

  // Whatever happened while the socket was away (or before it first opened) is in a fresh load.
  useSocketOpen(reload);

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
  useSocketEvent('friend-request-received', ({ from }) => {
    dispatch({ type: 'request/received', from, at: new Date().toISOString() });
    setArrival((previous) => ({ from, key: (previous?.key ?? 0) + 1 }));
  });
  useSocketEvent('friend-request-accepted', ({ user }) => {
    dispatch({ type: 'friend/added', user });
    reload();
  });
  useSocketEvent('friend-removed', ({ userId }) => dispatch({ type: 'friend/removed', userId }));
  useSocketEvent('friend-request-rejected', ({ userId }) => dispatch({ type: 'request/resolved', userId }));

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
      setActionError(errorMessageKey(error));
      return false;
    } finally {
      dispatch({ type: 'busy', userId, busy: false });
    }
  }, []);

  const sendRequest = useCallback(
    async (userId: string) => {
      await run(userId, async () => {
        try {
          const { status } = await friendsApi.sendRequest(userId);
          // They had asked us already: the server made us friends on the spot.
          if (status === 'friends') reload();
          else dispatch({ type: 'request/sent', userId });
        } catch (error) {
          if (!hasErrorCode(error, 'ALREADY_FRIENDS')) throw error;
          reload();
        }
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
  const friends = useMemo(() => sortFriends(state.friends, language), [state.friends, language]);
  const online = useMemo(() => friends.filter((f) => presenceOf(f) !== 'offline'), [friends]);
  const busy = state.busy;
  const isBusy = useCallback((userId: string) => busy.includes(userId), [busy]);
  const dismissArrival = useCallback(() => setArrival(null), []);
  const dismissError = useCallback(() => setActionError(null), []);

  return {
    state,
    friends,
    online,
    actionError,
    dismissError,
    arrival,
    dismissArrival,
    reload,
    isBusy,
    sendRequest,
    accept,
    reject,
    remove,
  };
}
