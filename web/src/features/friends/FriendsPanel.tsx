import type { User } from '@voice/protocol';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { EmptyState } from '../../ui/EmptyState.tsx';
import { FormAlert } from '../../ui/FormAlert.tsx';
import { InboxIcon, UsersIcon } from '../../ui/icons.tsx';
import { ListSection } from '../../ui/ListSection.tsx';
import { PanelLoadFailed, PanelLoading } from '../../ui/PanelStates.tsx';
import { FriendList } from './FriendList.tsx';
import { FriendsOverview } from './FriendsOverview.tsx';
import { RemoveFriendDialog } from './RemoveFriendDialog.tsx';
import type { FriendsViewModel } from './useFriends.ts';
import './FriendsPanel.css';

interface Props {
  friends: FriendsViewModel;
  /** overview: requests (incoming and sent) and who is online (the "all" tab); list: every friend. */
  view: 'overview' | 'list';
  onShowAllFriends(): void;
  /** The call button of a friend's row, from the calls feature. */
  callAction(friend: User): ReactNode;
}

/** The friends part of a dashboard tab, with its loading, failure and empty states. */
export function FriendsPanel({ friends, view, onShowAllFriends, callAction }: Props) {
  const { t } = useTranslation();
  const [removing, setRemoving] = useState<User | null>(null);
  const { state } = friends;

  if (state.status === 'loading') return <PanelLoading />;
  if (state.status === 'error') {
    return (
      <PanelLoadFailed
        title={t('friends.loadFailed')}
        text={t('friends.loadFailedHint')}
        onRetry={friends.reload}
      />
    );
  }

  const askToRemove = (friend: User) => {
    friends.dismissError();
    setRemoving(friend);
  };
  const confirmRemove = async () => {
    if (removing && (await friends.remove(removing.id))) setRemoving(null);
  };

  const friendCount = friends.friends.length;
  let content: ReactNode;
  if (view === 'list') {
    content =
      friendCount === 0 ? (
        <EmptyState
          icon={<UsersIcon />}
          title={t('dashboard.empty.friends.title')}
          text={t('dashboard.empty.friends.text')}
        />
      ) : (
        <ListSection title={t('friends.list.title')} count={friendCount}>
          <FriendList
            friends={friends.friends}
            presenceKnown={friends.presenceKnown}
            onRemove={askToRemove}
            isBusy={friends.isBusy}
            label={t('friends.list.title')}
            callAction={callAction}
          />
        </ListSection>
      );
  } else if (friendCount === 0 && state.requests.length === 0 && state.sent.length === 0) {
    content = (
      <EmptyState
        icon={<InboxIcon />}
        title={t('dashboard.empty.all.title')}
        text={t('dashboard.empty.all.text')}
      />
    );
  } else {
    content = (
      <FriendsOverview
        friends={friends}
        onRemove={askToRemove}
        onShowAllFriends={onShowAllFriends}
        callAction={callAction}
      />
    );
  }

  return (
    <>
      {friends.actionError && !removing && (
        <div className="friends-panel__alert">
          <FormAlert>{t(friends.actionError.key, friends.actionError.values)}</FormAlert>
        </div>
      )}
      {content}
      <RemoveFriendDialog
        friend={removing}
        busy={removing ? friends.isBusy(removing.id) : false}
        error={removing ? friends.actionError : null}
        onConfirm={() => void confirmRemove()}
        onDismiss={() => setRemoving(null)}
      />
    </>
  );
}
