import type { FriendRequest } from '@voice/protocol';
import { useTranslation } from 'react-i18next';
import { nameOf } from '../../lib/people.ts';
import { Button } from '../../ui/Button.tsx';
import { PersonRow } from '../../ui/PersonRow.tsx';

interface Props {
  requests: readonly FriendRequest[];
  onAccept(userId: string): void;
  onReject(userId: string): void;
  isBusy(userId: string): boolean;
  label: string;
}

/** Incoming friend requests, each with Accept and Reject. */
export function RequestList({ requests, onAccept, onReject, isBusy, label }: Props) {
  const { t } = useTranslation();
  return (
    <ul className="person-list" aria-label={label}>
      {requests.map(({ from }) => {
        const name = nameOf(from);
        const busy = isBusy(from.id);
        return (
          <PersonRow
            key={from.id}
            name={name}
            username={from.username}
            avatarUrl={from.avatar_url}
            detail={t('friends.requests.wantsToBeFriends')}
            actions={(nameId) => (
              <>
                <Button
                  variant="primary"
                  onClick={() => onAccept(from.id)}
                  disabled={busy}
                  aria-describedby={nameId}
                >
                  {t('friends.requests.accept')}
                </Button>
                <Button
                  variant="secondary"
                  onClick={() => onReject(from.id)}
                  disabled={busy}
                  aria-describedby={nameId}
                >
                  {t('friends.requests.reject')}
                </Button>
              </>
            )}
          />
        );
      })}
    </ul>
  );
}
