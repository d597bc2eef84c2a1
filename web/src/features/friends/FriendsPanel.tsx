import type { User } from '@voice/protocol';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../ui/Button.tsx';
import { FormAlert } from '../../ui/FormAlert.tsx';
import { AlertIcon, InboxIcon, UsersIcon } from '../../ui/icons.tsx';
import { EmptyState } from '../dashboard/EmptyState.tsx';
import { FriendList } from './FriendList.tsx';
import { RemoveFriendDialog } from './RemoveFriendDialog.tsx';
import { RequestList } from './RequestList.tsx';
import type { FriendsViewModel } from './useFriends.ts';
import './FriendsPanel.css';

interface Props {
  friends: FriendsViewModel;
  /** overview: requests and who is online (the "all" tab); list: every friend. */
  view: 'overview' | 'list';
  onShowAllFriends(): void;
}

/** The friends part of a dashboard tab, with its loading, failure and empty states. */
export function FriendsPanel({ friends, view, onShowAllFriends }: Props) {
  const { t } = useTranslation();
  const [removing, setRemoving] = useState<User | null>(null);
  const { state } = friends;

  if (state.status === 'loading') {
    return (
      <div className="friends-panel__loading" role="status">
        <span className="spinner" aria-hidden="true" />
        <span className="visually-hidden">{t('common.loading')}</span>
      </div>
    );
  }
  if (state.status === 'error') {
    return (
      <div role="alert">
        <EmptyState
          icon={<AlertIcon />}
          title={t('friends.loadFailed')}
          text={t('friends.loadFailedHint')}
          action={
            <Button variant="secondary" onClick={friends.reload}>
              {t('common.retry')}
            </Button>
          }
        />
      </div>
    );
  }

  const askToRemove = (friend: User) => {
    friends.dismissError();
    setRemoving(friend);
  };
  const confirmRemove = async () => {
    if (removing && (await friends.remove(removing.id))) setRemoving(null);
  };

  const requestCount = state.requests.length;
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
        <section className="friends-section">
          <SectionTitle title={t('friends.list.title')} count={friendCount} />
          <FriendList
            friends={friends.friends}
            onRemove={askToRemove}
            isBusy={friends.isBusy}
            label={t('friends.list.title')}
          />
        </section>
      );
  } else if (friendCount === 0 && requestCount === 0) {
    content = (
      <EmptyState
        icon={<InboxIcon />}
        title={t('dashboard.empty.all.title')}
        text={t('dashboard.empty.all.text')}
      />
    );
  } else {
    content = (
      <>
        {requestCount > 0 && (
          <section className="friends-section">
            <SectionTitle title={t('friends.requests.title')} count={requestCount} />
            <RequestList
              requests={state.requests}
              onAccept={(userId) => void friends.accept(userId)}
              onReject={(userId) => void friends.reject(userId)}
              isBusy={friends.isBusy}
              label={t('friends.requests.title')}
            />
          </section>
        )}
        <section className="friends-section">
          <SectionTitle title={t('friends.online.title')} count={friends.online.length} />
          {friends.online.length > 0 ? (
            <FriendList
              friends={friends.online}
              onRemove={askToRemove}
              isBusy={friends.isBusy}
              label={t('friends.online.title')}
            />
          ) : (
            <p className="friends-section__note">
              {friendCount === 0 ? t('friends.online.noFriends') : t('friends.online.none')}
            </p>
          )}
          {friendCount > friends.online.length && (
            <div className="friends-section__more">
              <Button variant="ghost" onClick={onShowAllFriends}>
                {t('friends.online.showAll')}
              </Button>
            </div>
          )}
        </section>
      </>
    );
  }

  return (
    <>
      {friends.actionError && !removing && (
        <div className="friends-panel__alert">
          <FormAlert>{t(friends.actionError)}</FormAlert>
        </div>
      )}
      {content}
      <RemoveFriendDialog
        friend={removing}
        busy={removing ? friends.isBusy(removing.id) : false}
        errorKey={removing ? friends.actionError : null}
        onConfirm={() => void confirmRemove()}
        onDismiss={() => setRemoving(null)}
      />
    </>
  );
}

function SectionTitle({ title, count }: { title: string; count: number }) {
  return (
    <h2 className="friends-section__title">
      {title}
      <span className="friends-section__count">{count}</span>
    </h2>
  );
}
