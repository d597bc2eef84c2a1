/**
 * The invite-friends dialog: pick friends (searched by name, online first, those already in
 * the room marked and not pickable), send; at least one must be picked. It closes once sent.
 */
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
  /** Who is in the room now: nobody needs inviting there. */
  memberIds: ReadonlySet<string>;
  onClose(): void;
  /** The invitations went out (the dialog is closing). */
  onSent(): void;
}

export function InviteFriendsDialog({ roomId, friends, memberIds, onClose, onSent }: Props) {
  const { t } = useTranslation();
  const formId = useId();
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ErrorMessage | null>(null);
  const [query, setQuery] = useState('');
  const needle = query.trim().toLocaleLowerCase();
  const shown = friends
    .filter(
      (friend) => !needle || `${nameOf(friend)} ${friend.username}`.toLocaleLowerCase().includes(needle),
    )
    .sort((a, b) => Number(b.is_online === true) - Number(a.is_online === true));

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
      onSent();
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
        {friends.length === 0 ? (
          <p>{t('friends.online.noFriends')}</p>
        ) : (
          <>
            <input
              type="search"
              className="invite-list__search"
              value={query}
              placeholder={t('rooms.invite.search')}
              aria-label={t('rooms.invite.search')}
              maxLength={100}
              onChange={(event) => setQuery(event.target.value)}
            />
            <fieldset className="invite-list">
              <legend className="visually-hidden">{t('rooms.invite.title')}</legend>
              {shown.length === 0 && <p className="invite-list__none">{t('rooms.invite.noMatch')}</p>}
              {shown.map((friend) => {
                const inRoom = memberIds.has(friend.id);
                return (
                  <label key={friend.id} className="invite-list__row" data-in-room={inRoom}>
                    <input
                      type="checkbox"
                      checked={picked.has(friend.id)}
                      disabled={inRoom}
                      onChange={() => toggle(friend.id)}
                    />
                    <Avatar name={nameOf(friend)} url={friend.avatar_url} size={32} />
                    <span className="invite-list__name">{nameOf(friend)}</span>
                    <span className="invite-list__state" data-online={friend.is_online === true}>
                      {inRoom
                        ? t('rooms.invite.inRoom')
                        : t(friend.is_online ? 'rooms.invite.online' : 'rooms.invite.offline')}
                    </span>
                  </label>
                );
              })}
            </fieldset>
          </>
        )}
      </form>
    </Dialog>
  );
}
