/**
 * The Calls tab's view-model: loads the call history, pages on with "load more", and fetches
 * the newest page again whenever a call of this person ends.
 */
import { CALL_HISTORY } from '@voice/protocol';
import { useCallback, useEffect, useReducer, useRef } from 'react';
import { callsApi } from '../../api/calls.ts';
import { errorMessage } from '../../api/errorMessage.ts';
import { currentLanguage } from '../../i18n/i18n.ts';
import { useSocketEvent } from '../../socket/useAppSocket.ts';
import {
  type CallHistoryState,
  callHistoryReducer,
  initialCallHistoryState,
  nextBefore,
} from './callHistoryView.ts';
import { useCall } from './useCall.ts';

const PAGE_SIZE = CALL_HISTORY.defaultLimit;

/**
 * One ending fires several triggers within milliseconds (`call-ended` or `call-rejected`, then
 * the active call going away): they share one fetch. The server writes the history line
 * before it tells the parties, so the fetch finds it.
 */
const REFRESH_DELAY_MS = 150;

export interface CallHistoryViewModel {
  state: CallHistoryState;
  /** Loads the first page again, from scratch (the retry of a failed load). */
  reload(): void;
  /** Loads the page after the oldest call shown. */
  loadMore(): void;
}

export function useCallHistory(): CallHistoryViewModel {
  const [state, dispatch] = useReducer(callHistoryReducer, initialCallHistoryState);
  const loadRef = useRef<AbortController | null>(null);
  const moreRef = useRef<AbortController | null>(null);
  const refreshRef = useRef<AbortController | null>(null);
  const refreshTimer = useRef<ReturnType<typeof setTimeout> | null>(null);

  const reload = useCallback(() => {
    loadRef.current?.abort();
    moreRef.current?.abort();
    const controller = new AbortController();
    loadRef.current = controller;
    dispatch({ type: 'load/started' });
    callsApi.history({ limit: PAGE_SIZE }, controller.signal).then(
      ({ calls }) => {
        if (!controller.signal.aborted) dispatch({ type: 'load/succeeded', calls, limit: PAGE_SIZE });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        console.warn('Failed to load the call history', error);
        dispatch({ type: 'load/failed', error: errorMessage(error, currentLanguage()) });
      },
    );
  }, []);

  // Quietly: the list shown stays as it is when this fails, and the next ending tries again.
  const refresh = useCallback(() => {
    refreshRef.current?.abort();
    const controller = new AbortController();
    refreshRef.current = controller;
    callsApi.history({ limit: PAGE_SIZE }, controller.signal).then(
      ({ calls }) => {
        if (!controller.signal.aborted) dispatch({ type: 'refresh/succeeded', calls, limit: PAGE_SIZE });
      },
      (error: unknown) => {
        if (!controller.signal.aborted) console.warn('Failed to refresh the call history', error);
      },
    );
  }, []);

  const scheduleRefresh = useCallback(() => {
    if (refreshTimer.current) clearTimeout(refreshTimer.current);
    refreshTimer.current = setTimeout(() => {
      refreshTimer.current = null;
      refresh();
    }, REFRESH_DELAY_MS);
  }, [refresh]);

  const before = nextBefore(state.calls);
  const { loadingMore } = state;
  const loadMore = useCallback(() => {
    if (!before || loadingMore) return;
    const controller = new AbortController();
    moreRef.current = controller;
    dispatch({ type: 'more/started' });
    callsApi.history({ limit: PAGE_SIZE, before }, controller.signal).then(
      ({ calls }) => {
        if (!controller.signal.aborted) dispatch({ type: 'more/succeeded', calls, limit: PAGE_SIZE, before });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        console.warn('Failed to load more calls', error);
        dispatch({ type: 'more/failed', error: errorMessage(error, currentLanguage()) });
      },
    );
  }, [before, loadingMore]);

  useEffect(() => {
    reload();
    return () => {
      loadRef.current?.abort();
      moreRef.current?.abort();
      refreshRef.current?.abort();
      if (refreshTimer.current) clearTimeout(refreshTimer.current);
    };
  }, [reload]);

  useSocketEvent('call-ended', scheduleRefresh);
  useSocketEvent('call-rejected', scheduleRefresh);

  // The end of this tab's own call, also when no event of it reached us (the socket was down).
  const activeCallId = useCall().state.active?.callId ?? null;
  const previousCallId = useRef(activeCallId);
  useEffect(() => {
    if (previousCallId.current !== null && activeCallId === null) scheduleRefresh();
    previousCallId.current = activeCallId;
  }, [activeCallId, scheduleRefresh]);

  return { state, reload, loadMore };
}
