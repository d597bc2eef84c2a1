import { useTranslation } from 'react-i18next';
import { nameOf } from '../../lib/people.ts';
import { Avatar } from '../../ui/Avatar.tsx';
import { CloseIcon } from '../../ui/icons.tsx';
import type { Arrival } from './useFriends.ts';
import '../../ui/Toast.css';

/** "Ann sent you a friend request", for a few seconds after it arrives. */
export function RequestToast({ arrival, onDismiss }: { arrival: Arrival | null; onDismiss(): void }) {
  const { t } = useTranslation();
  // The live region stays in the page, so screen readers announce what appears in it.
  return (
    <div className="toast-region" role="status">
      {arrival && (
        <div className="toast" key={arrival.key}>
          <Avatar name={nameOf(arrival.from)} url={arrival.from.avatar_url} size={36} />
          <p className="toast__text">{t('friends.requests.toast', { name: nameOf(arrival.from) })}</p>
          <button
            type="button"
            className="toast__close"
            onClick={onDismiss}
            aria-label={t('friends.toastDismiss')}
          >
            <CloseIcon width="18" height="18" />
          </button>
        </div>
      )}
    </div>
  );
}
