import type { User } from '@voice/protocol';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { nameOf } from '../../lib/people.ts';
import { IconButton } from '../../ui/IconButton.tsx';
import { UserMinusIcon } from '../../ui/icons.tsx';
import { PersonRow } from '../../ui/PersonRow.tsx';
import { presenceOf } from './friendsState.ts';
import { PresenceStatus } from './PresenceStatus.tsx';

interface Props {
  friends: readonly User[];
  /** False while presence is not current (our socket is down): badges say "unknown". */
  presenceKnown: boolean;
  /** Asks to remove a friend (the caller confirms first). */
  onRemove(friend: User): void;
  isBusy(userId: string): boolean;
  label: string;
  /** The call button of a friend's row; the dashboard passes the calls feature's. */
  callAction(friend: User): ReactNode;
}

/** Friends with their presence, a call button and a remove action. */
export function FriendList({ friends, presenceKnown, onRemove, isBusy, label, callAction }: Props) {
  const { t } = useTranslation();
  return (
    <ul className="person-list" aria-label={label}>
      {friends.map((friend) => {
        const name = nameOf(friend);
        const presence = presenceOf(friend, presenceKnown);
        return (
          <PersonRow
            key={friend.id}
            name={name}
            username={friend.username}
            avatarUrl={friend.avatar_url}
            presence={presence}
            detail={<PresenceStatus presence={presence} lastSeen={friend.last_seen} room={friend.room} />}
            actions={() => (
              <>
                {callAction(friend)}
                <IconButton
                  label={t('friends.remove.label', { name })}
                  onClick={() => onRemove(friend)}
                  disabled={isBusy(friend.id)}
                >
                  <UserMinusIcon />
                </IconButton>
              </>
            )}
          />
        );
      })}
    </ul>
  );
}
