/** The invite-friends dialog: pick friends, send; at least one must be picked. */
import type { User } from '@voice/protocol';
import { type FormEvent, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type ErrorMessage, errorMessage } from '../../../api/errorMessage.ts';
import { roomsApi } from '../../../api/rooms.ts';
import { currentLanguage } from '../../../i18n/i18n.ts';
import { nameOf } from '../../../lib/people.ts';
import { Avatar } from '../../../ui/Avatar.tsx';
import { Button } from '../../../ui/Button.tsx';
import { Dialog } from '../../../ui/Dialog.tsx';
import { FormAlert } from '../../../ui/FormAlert.tsx';

interface Props {
  roomId: string;
  /** The friends to pick from: the dashboard passes the friends feature's list. */
  friends: readonly User[];
  onClose(): void;
}

export function InviteFriendsDialog({ roomId, friends, onClose }: Props) {
  const { t } = useTranslation();
  const formId = useId();
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorMessage | null>(null);
  const [sent, setSent] = useState(false);

  const toggle = (id: string) => {
    const next = new Set(picked);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setPicked(next);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (picked.size === 0) {
      setError({ key: 'errors.INVITE_EMPTY' });
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await roomsApi.invite(roomId, [...picked]);
      setSent(true);
      setPicked(new Set());
    } catch (failure) {
      setError(errorMessage(failure, currentLanguage()));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      title={t('rooms.invite.title')}
      onClose={onClose}
      closeLabel={t('call.dismiss')}
      footer={
        <Button type="submit" form={formId} busy={busy}>
          {t('rooms.invite.send')}
        </Button>
      }
    >
      <form id={formId} className="rooms-form" onSubmit={(event) => void submit(event)}>
        {error && <FormAlert>{t(error.key, error.values)}</FormAlert>}
        {sent && !error && <p role="status">{t('rooms.invite.sent')}</p>}
        {friends.length === 0 ? (
          <p>{t('friends.online.noFriends')}</p>
        ) : (
          <fieldset className="invite-list">
            <legend className="visually-hidden">{t('rooms.invite.title')}</legend>
            {friends.map((friend) => (
              <label key={friend.id} className="invite-list__row">
                <input type="checkbox" checked={picked.has(friend.id)} onChange={() => toggle(friend.id)} />
                <Avatar name={nameOf(friend)} url={friend.avatar_url} size={32} />
                <span>{nameOf(friend)}</span>
              </label>
            ))}
          </fieldset>
        )}
      </form>
    </Dialog>
  );
}
