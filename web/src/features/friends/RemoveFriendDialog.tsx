import type { User } from '@voice/protocol';
import { useEffect, useId, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { ErrorMessage } from '../../api/errorMessage.ts';
import { nameOf } from '../../lib/people.ts';
import { Avatar } from '../../ui/Avatar.tsx';
import { Button } from '../../ui/Button.tsx';
import { FormAlert } from '../../ui/FormAlert.tsx';
import './RemoveFriendDialog.css';

interface Props {
  /** The friend to confirm; null keeps the dialog closed. */
  friend: User | null;
  busy: boolean;
  /** Translation key of a failed attempt. */
  error: ErrorMessage | null;
  onConfirm(): void;
  /** Cancel or Escape. */
  onDismiss(): void;
}

/**
 * Confirmation before removing a friend: a modal <dialog>, so focus stays inside,
 * Escape closes it and the page behind is inert. Cancel has the focus first.
 */
export function RemoveFriendDialog({ friend, busy, error, onConfirm, onDismiss }: Props) {
  const { t } = useTranslation();
  const id = useId();
  const ref = useRef<HTMLDialogElement>(null);
  // The last friend shown, so the content does not vanish while the dialog closes.
  const shown = useRef<User | null>(null);
  if (friend) shown.current = friend;

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (friend && !dialog.open) {
      const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      dialog.showModal();
      dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus();
      return () => {
        if (dialog.open) dialog.close();
        // Back to the button that opened it, when that still exists.
        if (opener?.isConnected) opener.focus();
      };
    }
  }, [friend]);

  const person = friend ?? shown.current;
  const name = person ? nameOf(person) : '';

  return (
    <dialog
      ref={ref}
      className="confirm-dialog"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-text`}
      onClose={onDismiss}
      onCancel={(event) => {
        if (busy) event.preventDefault();
      }}
    >
      <div className="confirm-dialog__body">
        {person && <Avatar name={name} url={person.avatar_url} size={56} />}
        <h2 className="confirm-dialog__title" id={`${id}-title`}>
          {t('friends.remove.title', { name })}
        </h2>
        <p className="confirm-dialog__text" id={`${id}-text`}>
          {t('friends.remove.text')}
        </p>
        {error && <FormAlert>{t(error.key, error.values)}</FormAlert>}
        <div className="confirm-dialog__actions">
          <Button variant="secondary" onClick={onDismiss} disabled={busy} data-autofocus>
            {t('friends.remove.cancel')}
          </Button>
          <Button className="button--danger" onClick={onConfirm} busy={busy}>
            {t('friends.remove.confirm')}
          </Button>
        </div>
      </div>
    </dialog>
  );
}
