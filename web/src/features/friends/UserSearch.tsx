import { LIMITS } from '@voice/protocol';
import { type ReactNode, useId } from 'react';
import { useTranslation } from 'react-i18next';
import { nameOf } from '../../lib/people.ts';
import { CloseIcon, SearchIcon } from '../../ui/icons.tsx';
import { PersonRow } from '../../ui/PersonRow.tsx';
import { relationshipOf } from './friendsState.ts';
import { RelationshipAction } from './RelationshipAction.tsx';
import type { FriendsViewModel } from './useFriends.ts';
import { useUserSearch } from './useUserSearch.ts';
import './UserSearch.css';

/** Find people by username or display name, and befriend them from the results. */
export function UserSearch({ friends }: { friends: FriendsViewModel }) {
  const { t } = useTranslation();
  const id = useId();
  const { query, setQuery, clear, view } = useUserSearch();
  const results = view.state === 'done' || view.state === 'searching' ? view.results : [];

  let status: ReactNode = null;
  if (view.state === 'too-short') status = t('search.tooShort', { min: LIMITS.searchMin });
  else if (view.state === 'searching' && results.length === 0)
    status = (
      <span className="user-search__pending">
        <span className="spinner spinner--small" aria-hidden="true" />
        {t('search.searching')}
      </span>
    );
  else if (view.state === 'done' && results.length === 0) status = t('search.noResults', { term: view.term });
  else if (view.state === 'failed')
    status = <span className="user-search__error">{t(view.error.key, view.error.values)}</span>;

  return (
    <section className="user-search" aria-labelledby={`${id}-title`}>
      <h2 className="user-search__title" id={`${id}-title`}>
        {t('search.title')}
      </h2>
      <p className="user-search__intro">{t('search.intro')}</p>
      <div className="user-search__field">
        <label className="visually-hidden" htmlFor={`${id}-input`}>
          {t('search.label')}
        </label>
        <span className="user-search__icon">
          <SearchIcon />
        </span>
        <input
          id={`${id}-input`}
          className="field__input user-search__input"
          type="search"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
          placeholder={t('search.placeholder')}
          autoComplete="off"
          autoCapitalize="off"
          spellCheck={false}
          enterKeyHint="search"
          aria-describedby={`${id}-status`}
        />
        {query && (
          <button
            type="button"
            className="field__icon-button user-search__clear"
            onClick={clear}
            aria-label={t('search.clear')}
          >
            <CloseIcon width="18" height="18" />
          </button>
        )}
      </div>
      <div className="user-search__status" id={`${id}-status`} aria-live="polite">
        {status}
      </div>
      {results.length > 0 && (
        <ul
          className="person-list user-search__results"
          aria-label={t('search.results')}
          aria-busy={view.state === 'searching'}
        >
          {results.map((result) => (
            <PersonRow
              key={result.id}
              name={nameOf(result)}
              username={result.username}
              avatarUrl={result.avatar_url}
              actions={(nameId) => (
                <RelationshipAction
                  result={result}
                  relationship={relationshipOf(friends.state, result.id, result.relationship)}
                  friends={friends}
                  nameId={nameId}
                />
              )}
            />
          ))}
        </ul>
      )}
    </section>
  );
}
