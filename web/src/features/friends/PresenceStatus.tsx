import type { UserRoom } from '@voice/protocol';
import { useTranslation } from 'react-i18next';
import { formatLastSeen } from '../../i18n/format.ts';
import type { Presence } from '../../lib/people.ts';
import { useNow } from '../../lib/useNow.ts';
import '../../ui/presence.css';
import './PresenceStatus.css';

const LABELS: Record<Presence, string> = {
  online: 'presence.online',
  'in-call': 'presence.inCall',
  'in-room': 'presence.inRoom',
  offline: 'presence.offline',
  unknown: 'presence.unknown',
};

/** Under a minute, "Last seen just now" reads better than Intl's "now". */
const JUST_NOW_MS = 60_000;

interface Props {
  presence: Presence;
  /** ISO time, shown as "last seen" when offline. */
  lastSeen: string | null;
  /** The room they are in, for `in-room`: named, or private to us (name null). */
  room?: UserRoom | null;
}

/** A friend's presence badge and, when offline, how long ago they were last seen. */
export function PresenceStatus({ presence, lastSeen, room }: Props) {
  const { t, i18n } = useTranslation();
  const now = useNow(presence === 'offline' && lastSeen !== null);
  let seen: string | null = null;
  if (presence === 'offline' && lastSeen) {
    const ago = now - new Date(lastSeen).getTime();
    seen =
      ago < JUST_NOW_MS
        ? t('presence.lastSeenJustNow')
        : t('presence.lastSeen', {
            time: formatLastSeen(lastSeen, i18n.resolvedLanguage ?? i18n.language, now),
          });
  }
  return (
    <span className="presence">
      <span className={`presence__badge presence__badge--${presence}`}>
        <span className="presence__dot" aria-hidden="true" />
        {presence === 'in-room' && room?.name === null
          ? t('presence.inPrivateRoom')
          : t(LABELS[presence], { room: room?.name })}
      </span>
      {seen && <span className="presence__last-seen">{seen}</span>}
    </span>
  );
}
