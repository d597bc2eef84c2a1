import type { SentFriendRequest } from '@voice/protocol';
import { useTranslation } from 'react-i18next';
import { nameOf } from '../../lib/people.ts';
import { Button } from '../../ui/Button.tsx';
import { PersonRow } from '../../ui/PersonRow.tsx';

interface Props {
  requests: readonly SentFriendRequest[];
  onCancel(userId: string): void;
  isBusy(userId: string): boolean;
  label: string;
}

/** Requests we sent that wait for an answer, each with Cancel. */
export function SentRequestList({ requests, onCancel, isBusy, label }: Props) {
  const { t } = useTranslation();
  return (
    <ul className="person-list" aria-label={label}>
      {requests.map(({ to }) => {
        const busy = isBusy(to.id);
        return (
          <PersonRow
            key={to.id}
            name={nameOf(to)}
            username={to.username}
            avatarUrl={to.avatar_url}
            detail={t('friends.sent.waiting')}
            actions={(nameId) => (
              <Button
                variant="secondary"
                busy={busy}
                onClick={() => onCancel(to.id)}
                aria-describedby={nameId}
              >
                {t('friends.sent.cancel')}
              </Button>
            )}
          />
        );
      })}
    </ul>
  );
}
