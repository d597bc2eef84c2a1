/** User search (SPEC section 5: at least LIMITS.searchMin characters), debounced. */
import { LIMITS, type SearchResult } from '@voice/protocol';
import { useCallback, useEffect, useState } from 'react';
import { type ErrorMessage, errorMessage } from '../../api/errorMessage.ts';
import { friendsApi } from '../../api/friends.ts';
import { currentLanguage } from '../../i18n/i18n.ts';

/** Wait after the last keystroke before asking the server. */
export const SEARCH_DEBOUNCE_MS = 300;

/** What the search box shows. */
export type SearchView =
  | { state: 'idle' }
  | { state: 'too-short' }
  /** Waiting for the answer; the previous results stay up meanwhile. */
  | { state: 'searching'; results: SearchResult[] }
  | { state: 'done'; term: string; results: SearchResult[] }
  | { state: 'failed'; error: ErrorMessage };

export interface UserSearch {
  query: string;
  setQuery(query: string): void;
  clear(): void;
  view: SearchView;
}

export function useUserSearch(): UserSearch {
  const [query, setQuery] = useState('');
  const [view, setView] = useState<SearchView>({ state: 'idle' });
  const term = query.trim();

  useEffect(() => {
    if (!term) {
      setView({ state: 'idle' });
      return;
    }
    if (Array.from(term).length < LIMITS.searchMin) {
      setView({ state: 'too-short' });
      return;
    }
    setView((previous) => ({
      state: 'searching',
      results: previous.state === 'done' || previous.state === 'searching' ? previous.results : [],
    }));
    const controller = new AbortController();
    const timer = setTimeout(() => {
      friendsApi.search(term, controller.signal).then(
        ({ users }) => setView({ state: 'done', term, results: users }),
        (error: unknown) => {
          if (!controller.signal.aborted)
            setView({ state: 'failed', error: errorMessage(error, currentLanguage()) });
        },
      );
    }, SEARCH_DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [term]);

  const clear = useCallback(() => setQuery(''), []);
  return { query, setQuery, clear, view };
}
