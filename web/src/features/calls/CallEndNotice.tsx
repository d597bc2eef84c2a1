/**
 * The card that follows a call, at the top of the page for a few seconds: "Call was declined"
 * over "Bob declined the call", or "Call ended · 2:31" over "Bob ended the call", as Discord
 * and WhatsApp do. It goes by itself, on its close button, or when the next call starts.
 */
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Avatar } from '../../ui/Avatar.tsx';
import { CloseIcon, PhoneOffIcon } from '../../ui/icons.tsx';
import { callEndMessage } from './callEndView.ts';
import { formatDuration } from './callHistoryView.ts';
import type { CallViewModel } from './useCall.ts';

/** How long the card stays before it goes by itself. */
const VISIBLE_MS = 6000;

export function CallEndNotice({ call }: { call: CallViewModel }) {
  const { t } = useTranslation();
  const { outcome, ending } = call.state;
  const { dismissOutcome } = call;
  const message = callEndMessage(outcome, ending);
  // What the card is about: a new ending (or outcome) restarts the timer, so it gets its full time.
  const shownFor = message ? (ending ?? outcome) : null;
  useEffect(() => {
    if (shownFor === null) return;
    const timer = setTimeout(dismissOutcome, VISIBLE_MS);
    return () => clearTimeout(timer);
  }, [shownFor, dismissOutcome]);
  // The person: the ending knows them when we answered; the view-model knows whom we called.
  const person = ending?.peer ?? (call.peer?.id === ending?.peerUserId ? call.peer : null);
  const name = person?.display_name || person?.username || t('call.someone');
  return (
    <div className="call-outcome-region" role="status">
      {message && (
        <div
          className={message.problem ? 'call-outcome' : 'call-outcome call-outcome--ended'}
          data-outcome={outcome ?? 'ended'}
        >
          {person ? <Avatar name={name} url={person.avatar_url} size={36} /> : <PhoneOffIcon />}
          <div className="call-outcome__body">
            <p className="call-outcome__text">
              {t(message.titleKey)}
              {message.connectedSeconds !== null && (
                <>
                  {' · '}
                  <time dateTime={`PT${message.connectedSeconds}S`}>
                    {formatDuration(message.connectedSeconds)}
                  </time>
                </>
              )}
            </p>
            {message.detailKey && <p className="call-outcome__detail">{t(message.detailKey, { name })}</p>}
          </div>
          <button
            type="button"
            className="toast__close"
            onClick={dismissOutcome}
            aria-label={t('call.dismiss')}
          >
            <CloseIcon width="18" height="18" />
          </button>
        </div>
      )}
    </div>
  );
}
