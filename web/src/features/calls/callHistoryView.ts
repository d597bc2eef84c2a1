/**
 * The Calls tab's pure parts: what a row says about a call (status label, duration, when),
 * and the list's paging as a reducer, so the hook only fetches and dispatches.
 */
import type { CallHistoryEntry } from '@voice/protocol';
import type { ErrorMessage } from '../../api/errorMessage.ts';

/** How a row names a call's outcome: a translation key, and whether it is marked as missed. */
export interface CallStatusView {
  key: string;
  /** An incoming call nobody answered: shown in red with the "Missed" label. */
  missed: boolean;
  /** The call connected, so its duration is shown. */
  answered: boolean;
}

/** The label of `entry`'s outcome, from the point of view of the person asking. */
export function callStatusView(entry: Pick<CallHistoryEntry, 'direction' | 'status'>): CallStatusView {
  switch (entry.status) {
    case 'answered':
      return { key: 'callHistory.status.answered', missed: false, answered: true };
    case 'missed':
      // Our own call that nobody picked up is not "missed" by us: the other side missed it.
      return entry.direction === 'incoming'
        ? { key: 'callHistory.status.missed', missed: true, answered: false }
        : { key: 'callHistory.status.noAnswer', missed: false, answered: false };
    case 'declined':
      return { key: 'callHistory.status.declined', missed: false, answered: false };
    case 'cancelled':
      return { key: 'callHistory.status.cancelled', missed: false, answered: false };
  }
}

const pad = (value: number) => String(value).padStart(2, '0');

/** A call's length as m:ss, or h:mm:ss from an hour on ("0:07", "12:30", "1:02:03"). */
export function formatDuration(seconds: number): string {
  const total = Math.max(0, Math.floor(seconds));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const rest = total % 60;
  return hours > 0 ? `${hours}:${pad(minutes)}:${pad(rest)}` : `${minutes}:${pad(rest)}`;
}

/** Calls within this many days before today show their weekday instead of a date. */
const WEEKDAY_DAYS = 6;

const startOfDay = (date: Date) => new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();

/**
 * When a call was, as short as is still clear, in `language` and the local time zone:
 * the time today ("14:05"), weekday and time within the last week ("Tue 14:05"), the day
 * and month this year ("12 Mar"), the full date before; empty for an invalid date.
 */
export function formatCallTime(createdAt: string, language: string, now: number = Date.now()): string {
  const then = new Date(createdAt);
  if (Number.isNaN(then.getTime())) return '';
  const today = new Date(now);
  // Rounded: a day with a daylight-saving change is 23 or 25 hours long.
  const daysAgo = Math.round((startOfDay(today) - startOfDay(then)) / 86_400_000);
  let options: Intl.DateTimeFormatOptions;
  if (daysAgo === 0) options = { timeStyle: 'short' };
  else if (daysAgo > 0 && daysAgo <= WEEKDAY_DAYS)
    options = { weekday: 'short', hour: 'numeric', minute: '2-digit' };
  else if (then.getFullYear() === today.getFullYear()) options = { day: 'numeric', month: 'short' };
  else options = { dateStyle: 'medium' };
  return new Intl.DateTimeFormat(language, options).format(then);
}

/** The Calls tab's list: its first load, and the pages loaded after it. */
export interface CallHistoryState {
  status: 'loading' | 'ready' | 'error';
  /** Newest first, each call once. */
  calls: CallHistoryEntry[];
  /** The last page came back full, so older calls may follow. */
  hasMore: boolean;
  loadingMore: boolean;
  /** Why the first load failed (status `error`). */
  error: ErrorMessage | null;
  /** Why the last "load more" failed; the button stays to try again. */
  moreError: ErrorMessage | null;
}

export type CallHistoryAction =
  | { type: 'load/started' }
  | { type: 'load/succeeded'; calls: CallHistoryEntry[]; limit: number }
  | { type: 'load/failed'; error: ErrorMessage }
  | { type: 'more/started' }
  /** `before` is the cursor the page was asked with. */
  | { type: 'more/succeeded'; calls: CallHistoryEntry[]; limit: number; before: string }
  | { type: 'more/failed'; error: ErrorMessage }
  /** The newest page, fetched again after a call ended. */
  | { type: 'refresh/succeeded'; calls: CallHistoryEntry[]; limit: number };

export const initialCallHistoryState: CallHistoryState = {
  status: 'loading',
  calls: [],
  hasMore: false,
  loadingMore: false,
  error: null,
  moreError: null,
};

/** The cursor of the next page: the oldest call shown (the server pages on `created_at`). */
export function nextBefore(calls: readonly CallHistoryEntry[]): string | null {
  return calls.at(-1)?.created_at ?? null;
}

/** `page` after `calls`, leaving out any call already listed (two calls may share a time). */
function appendPage(calls: CallHistoryEntry[], page: CallHistoryEntry[]): CallHistoryEntry[] {
  const known = new Set(calls.map((call) => call.id));
  return [...calls, ...page.filter((call) => !known.has(call.id))];
}

const newestFirst = (a: CallHistoryEntry, b: CallHistoryEntry) =>
  Date.parse(b.created_at) - Date.parse(a.created_at) || (a.id < b.id ? 1 : -1);

const loaded = (calls: CallHistoryEntry[], limit: number): CallHistoryState => ({
  ...initialCallHistoryState,
  status: 'ready',
  calls,
  hasMore: calls.length >= limit,
});

export function callHistoryReducer(state: CallHistoryState, action: CallHistoryAction): CallHistoryState {
  switch (action.type) {
    case 'load/started':
      return initialCallHistoryState;
    case 'load/succeeded':
      return loaded(action.calls, action.limit);
    case 'load/failed':
      return { ...initialCallHistoryState, status: 'error', error: action.error };
    case 'more/started':
      return { ...state, loadingMore: true, moreError: null };
    case 'more/succeeded':
      // The list changed under the request (reloaded or replaced): the page no longer follows on.
      if (state.status !== 'ready' || nextBefore(state.calls) !== action.before)
        return { ...state, loadingMore: false };
      return {
        ...state,
        calls: appendPage(state.calls, action.calls),
        hasMore: action.calls.length >= action.limit,
        loadingMore: false,
      };
    case 'more/failed':
      return { ...state, loadingMore: false, moreError: action.error };
    case 'refresh/succeeded': {
      if (state.status !== 'ready' || state.calls.length === 0) return loaded(action.calls, action.limit);
      const known = new Set(state.calls.map((call) => call.id));
      const fresh = action.calls.filter((call) => !known.has(call.id));
      // A full page of calls all new to us may leave a gap before the ones shown: start over from it.
      if (fresh.length === action.calls.length && fresh.length >= action.limit)
        return loaded(action.calls, action.limit);
      if (fresh.length === 0) return state;
      return { ...state, calls: [...fresh, ...state.calls].sort(newestFirst) };
    }
  }
}
