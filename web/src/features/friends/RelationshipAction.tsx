import type { Relationship, SearchResult } from '@voice/protocol';
import { useTranslation } from 'react-i18next';
import { Button } from '../../ui/Button.tsx';
import { ClockIcon, UserCheckIcon, UserPlusIcon } from '../../ui/icons.tsx';
import type { FriendsViewModel } from './useFriends.ts';

interface ActionProps {
  result: SearchResult;
  relationship: Relationship;
  friends: FriendsViewModel;
  /** The id of the row's name, which describes the button to screen readers. */
  nameId: string;
}

/** Add friend / Request sent / Accept / Friends, by how the person relates to us. */
export function RelationshipAction({ result, relationship, friends, nameId }: ActionProps) {
  const { t } = useTranslation();
  const busy = friends.isBusy(result.id);
  switch (relationship) {
    case 'none':
      return (
        <Button
          busy={busy}
          onClick={() => {
            const { id, username, display_name, avatar_url } = result;
            void friends.sendRequest({ id, username, display_name, avatar_url });
          }}
          aria-describedby={nameId}
        >
          {!busy && <UserPlusIcon />}
          {t('search.action.add')}
        </Button>
      );
    case 'request_received':
      return (
        <Button busy={busy} onClick={() => void friends.accept(result.id)} aria-describedby={nameId}>
          {!busy && <UserCheckIcon />}
          {t('search.action.accept')}
        </Button>
      );
    case 'request_sent':
      return (
        <span className="person-row__state">
          <ClockIcon />
          {t('search.action.sent')}
        </span>
      );
    case 'friend':
      return (
        <span className="person-row__state person-row__state--friends">
          <UserCheckIcon />
          {t('search.action.friends')}
        </span>
      );
  }
}
