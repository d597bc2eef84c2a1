import type { User } from '@voice/protocol';
import { useTranslation } from 'react-i18next';
import { formatLastSeen } from '../../i18n/format.ts';
import { type Presence, presenceOf } from './friendsState.ts';
import { useNow } from './useNow.ts';
import './PresenceStatus.css';

const LABELS: Record<Presence, string> = {
  online: 'presence.online',
  'in-call': 'presence.inCall',
  offline: 'presence.offline',
};

/** Under a minute, "Last seen just now" reads better than Intl's "now". */
const JUST_NOW_MS = 60_000;

/** A friend's presence badge and, when offline, how long ago they were last seen. */
export function PresenceStatus({ user }: { user: Pick<User, 'is_online' | 'isInCall' | 'last_seen'> }) {
  const { t, i18n } = useTranslation();
  const presence = presenceOf(user);
  const now = useNow(presence === 'offline' && user.last_seen !== null);
  let lastSeen: string | null = null;
  if (presence === 'offline' && user.last_seen) {
    const ago = now - new Date(user.last_seen).getTime();
    lastSeen =
      ago < JUST_NOW_MS
        ? t('presence.lastSeenJustNow')
        : t('presence.lastSeen', {
            time: formatLastSeen(user.last_seen, i18n.resolvedLanguage ?? i18n.language, now),
          });
  }
  return (
    <span className="presence">
      <span className={`presence__badge presence__badge--${presence}`}>
        <span className="presence__dot" aria-hidden="true" />
        {t(LABELS[presence])}
      </span>
      {lastSeen && <span className="presence__last-seen">{lastSeen}</span>}
    </span>
  );
}
