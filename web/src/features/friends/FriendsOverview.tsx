import type { User } from '@voice/protocol';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../ui/Button.tsx';
import { ListSection } from '../../ui/ListSection.tsx';
import { FriendList } from './FriendList.tsx';
import { RequestList } from './RequestList.tsx';
import { SentRequestList } from './SentRequestList.tsx';
import type { FriendsViewModel } from './useFriends.ts';

interface Props {
  friends: FriendsViewModel;
  onRemove(friend: User): void;
  onShowAllFriends(): void;
  callAction(friend: User): ReactNode;
}

/** The "all" tab: requests to answer, requests sent, and who is online now. */
export function FriendsOverview({ friends, onRemove, onShowAllFriends, callAction }: Props) {
  const { t } = useTranslation();
  const { state, presenceKnown, online } = friends;
  const friendCount = friends.friends.length;
  return (
    <>
      {state.requests.length > 0 && (
        <ListSection title={t('friends.requests.title')} count={state.requests.length}>
          <RequestList
            requests={state.requests}
            onAccept={(userId) => void friends.accept(userId)}
            onReject={(userId) => void friends.reject(userId)}
            isBusy={friends.isBusy}
            label={t('friends.requests.title')}
          />
        </ListSection>
      )}
      {state.sent.length > 0 && (
        <ListSection title={t('friends.sent.title')} count={state.sent.length}>
          <SentRequestList
            requests={state.sent}
            onCancel={(userId) => void friends.cancelRequest(userId)}
            isBusy={friends.isBusy}
            label={t('friends.sent.title')}
          />
        </ListSection>
      )}
      <ListSection title={t('friends.online.title')} count={presenceKnown ? online.length : null}>
        {online.length > 0 ? (
          <FriendList
            friends={online}
            presenceKnown={presenceKnown}
            onRemove={onRemove}
            isBusy={friends.isBusy}
            label={t('friends.online.title')}
            callAction={callAction}
          />
        ) : (
          <p className="friends-panel__note">
            {friendCount === 0
              ? t('friends.online.noFriends')
              : presenceKnown
                ? t('friends.online.none')
                : t('friends.online.unknown')}
          </p>
        )}
        {friendCount > online.length && (
          <div className="friends-panel__more">
            <Button variant="ghost" onClick={onShowAllFriends}>
              {t('friends.online.showAll')}
            </Button>
          </div>
        )}
      </ListSection>
    </>
  );
}
