import type { CallDirection, CallHistoryEntry } from '@voice/protocol';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../i18n/format.ts';
import { nameOf } from '../../lib/people.ts';
import { useNow } from '../../lib/useNow.ts';
import { Button } from '../../ui/Button.tsx';
import { EmptyState } from '../../ui/EmptyState.tsx';
import { FormAlert } from '../../ui/FormAlert.tsx';
import { PhoneIcon } from '../../ui/icons.tsx';
import { PanelLoadFailed, PanelLoading } from '../../ui/PanelStates.tsx';
import { PersonRow } from '../../ui/PersonRow.tsx';
import { CallButton } from './CallButton.tsx';
import { callStatusView, formatCallTime, formatDuration } from './callHistoryView.ts';
import { useCallHistory } from './useCallHistory.ts';
import './CallHistory.css';

const DIRECTION_LABELS: Record<CallDirection, string> = {
  incoming: 'callHistory.direction.incoming',
  outgoing: 'callHistory.direction.outgoing',
};

/** An arrow into the corner (incoming) or out of it (outgoing); the label beside it says which. */
function DirectionIcon({ direction }: { direction: CallDirection }) {
  return (
    <svg
      className="call-entry__arrow"
      width="14"
      height="14"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="2.5"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      {direction === 'incoming' ? <path d="M17 7 7 17M17 17H7V7" /> : <path d="M7 17 17 7M7 7h10v10" />}
    </svg>
  );
}

/** One call: who, which way, how it went, when, and a button to call them back. */
function CallHistoryRow({
  entry,
  language,
  now,
}: {
  entry: CallHistoryEntry;
  language: string;
  now: number;
}) {
  const { t } = useTranslation();
  const status = callStatusView(entry);
  return (
    <PersonRow
      name={nameOf(entry.user)}
      username={entry.user.username}
      avatarUrl={entry.user.avatar_url}
      detail={
        <span className={`call-entry${status.missed ? ' call-entry--missed' : ''}`}>
          <span className="call-entry__direction">
            <DirectionIcon direction={entry.direction} />
            {t(DIRECTION_LABELS[entry.direction])}
          </span>
          <span className="call-entry__status">
            {t(status.key)}
            {status.answered && (
              <>
                {' '}
                <time dateTime={`PT${entry.duration}S`}>{formatDuration(entry.duration)}</time>
              </>
            )}
          </span>
          <time dateTime={entry.created_at} title={formatDateTime(entry.created_at, language)}>
            {formatCallTime(entry.created_at, language, now)}
          </time>
        </span>
      }
      actions={() => <CallButton user={entry.user} />}
    />
  );
}

/** The dashboard's Calls tab: the person's calls, newest first, with their loading, failure and empty states. */
export function CallHistory() {
  const { t, i18n } = useTranslation();
  const { state, reload, loadMore } = useCallHistory();
  // Keeps "today" and "Tue" right when the page stays open past midnight.
  const now = useNow(state.calls.length > 0);
  const language = i18n.resolvedLanguage ?? i18n.language;

  if (state.status === 'loading') return <PanelLoading />;
  if (state.status === 'error') {
    return (
      <PanelLoadFailed
        title={t('callHistory.loadFailed')}
        text={state.error ? t(state.error.key, state.error.values) : ''}
        onRetry={reload}
      />
    );
  }
  if (state.calls.length === 0) {
    return (
      <EmptyState
        icon={<PhoneIcon />}
        title={t('dashboard.empty.calls.title')}
        text={t('dashboard.empty.calls.text')}
      />
    );
  }

  return (
    <section className="call-history">
      <h2 className="call-history__title">{t('callHistory.title')}</h2>
      <ul className="person-list" aria-label={t('callHistory.title')}>
        {state.calls.map((entry) => (
          <CallHistoryRow key={entry.id} entry={entry} language={language} now={now} />
        ))}
      </ul>
      {state.moreError && (
        <div className="call-history__alert">
          <FormAlert>{t(state.moreError.key, state.moreError.values)}</FormAlert>
        </div>
      )}
      {state.hasMore && (
        <div className="call-history__more">
          <Button variant="ghost" busy={state.loadingMore} onClick={loadMore}>
            {t('callHistory.loadMore')}
          </Button>
        </div>
      )}
    </section>
  );
}
