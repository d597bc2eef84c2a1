/**
 * Room invitations waiting for an answer (spec section 3 "Room invitation"): who invited you
 * to which room, with join and decline. New ones arrive live over the app socket.
 */
import type { RoomInvitation } from '@voice/protocol';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { roomsApi } from '../../api/rooms.ts';
import { useSocketEvent, useSocketOpen } from '../../socket/useAppSocket.ts';
import { Button } from '../../ui/Button.tsx';
import { FriendsSection } from '../friends/FriendsSection.tsx';
import { useRoom } from './useRoom.ts';

export function RoomInvitations() {
  const { t } = useTranslation();
  const room = useRoom();
  const [invitations, setInvitations] = useState<readonly RoomInvitation[]>([]);
  const [busy, setBusy] = useState<string | null>(null);

  const load = useCallback(() => {
    roomsApi.invitations().then(
      (answer) => setInvitations(answer.invitations),
      (error: unknown) => console.warn('Failed to load room invitations', error),
    );
  }, []);
  useEffect(load, [load]);
  // After a lost connection, what arrived meanwhile.
  useSocketOpen(({ reconnected }) => {
    if (reconnected) load();
  });
  useSocketEvent('room-invitation-received', ({ invitation }) =>
    setInvitations((current) => [invitation, ...current.filter((item) => item.id !== invitation.id)]),
  );
  // Answered in another tab, or its room deleted.
  useSocketEvent('room-invitation-removed', ({ invitationId }) =>
    setInvitations((current) => current.filter((item) => item.id !== invitationId)),
  );

  if (invitations.length === 0) return null;
  const drop = (id: string) => setInvitations((current) => current.filter((item) => item.id !== id));

  return (
    <FriendsSection title={t('rooms.invitations.title')} count={invitations.length}>
      <ul className="room-list" aria-label={t('rooms.invitations.title')}>
        {invitations.map((invitation) => (
          <li key={invitation.id} className="room-row">
            <div className="room-row__text">
              <p className="room-row__name">{invitation.room_name}</p>
              <p className="room-row__meta">
                {t('rooms.invitations.from', {
                  name: invitation.inviter_display_name || invitation.inviter_username,
                })}
              </p>
            </div>
            <Button
              variant="ghost"
              disabled={busy !== null}
              onClick={() => {
                setBusy(invitation.id);
                roomsApi
                  .declineInvitation(invitation.id)
                  .then(() => drop(invitation.id))
                  .catch((error: unknown) => console.warn('Declining the invitation failed', error))
                  .finally(() => setBusy(null));
              }}
            >
              {t('rooms.invitations.decline')}
            </Button>
            <Button
              busy={busy === invitation.id}
              disabled={busy !== null}
              aria-label={t('rooms.joinNamed', { name: invitation.room_name })}
              onClick={() => {
                setBusy(invitation.id);
                void room.acceptInvitation(invitation.id, invitation.room_id).then((joined) => {
                  setBusy(null);
                  if (joined) drop(invitation.id);
                });
              }}
            >
              {t('rooms.join')}
            </Button>
          </li>
        ))}
      </ul>
    </FriendsSection>
  );
}
