/**
 * Room invitations waiting for an answer (spec section 3 "Room invitation"): who invited you
 * to which room, with join and decline. New ones arrive live over the app socket.
 */
import type { RoomInvitation } from '@voice/protocol';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { roomsApi } from '../../../api/rooms.ts';
import { useSocketEvent, useSocketOpen } from '../../../socket/useAppSocket.ts';
import { Button } from '../../../ui/Button.tsx';
import { ListSection } from '../../../ui/ListSection.tsx';
import { useRoom } from '../useRoom.ts';

/** A load of the invitations on its way, and what the socket said meanwhile. */
interface Load {
  readonly controller: AbortController;
  readonly arrived: Map<string, RoomInvitation>;
  readonly removed: Set<string>;
}

export function RoomInvitations() {
  const { t } = useTranslation();
  const room = useRoom();
  const [invitations, setInvitations] = useState<readonly RoomInvitation[]>([]);
  const [busy, setBusy] = useState<string | null>(null);

  const loadRef = useRef<Load | null>(null);

  // A newer load replaces an older one; what the socket said while a load was on its way is kept,
  // since the answer may have been read before it.
  const load = useCallback(() => {
    loadRef.current?.controller.abort();
    const current: Load = { controller: new AbortController(), arrived: new Map(), removed: new Set() };
    loadRef.current = current;
    roomsApi.invitations(current.controller.signal).then(
      (answer) => {
        if (current.controller.signal.aborted) return;
        loadRef.current = null;
        const fetched = answer.invitations.filter(
          (item) => !current.removed.has(item.id) && !current.arrived.has(item.id),
        );
        setInvitations([...current.arrived.values(), ...fetched]);
      },
      (error: unknown) => {
        if (!current.controller.signal.aborted) console.warn('Failed to load room invitations', error);
      },
    );
  }, []);
  useEffect(() => {
    load();
    return () => loadRef.current?.controller.abort();
  }, [load]);
  // Whatever arrived before the socket first opened, or while it was away.
  useSocketOpen(load);
  useSocketEvent('room-invitation-received', ({ invitation }) => {
    loadRef.current?.arrived.set(invitation.id, invitation);
    setInvitations((current) => [invitation, ...current.filter((item) => item.id !== invitation.id)]);
  });
  // Answered in another tab, or its room deleted.
  useSocketEvent('room-invitation-removed', ({ invitationId }) => {
    loadRef.current?.arrived.delete(invitationId);
    loadRef.current?.removed.add(invitationId);
    setInvitations((current) => current.filter((item) => item.id !== invitationId));
  });

  if (invitations.length === 0) return null;
  const drop = (id: string) => setInvitations((current) => current.filter((item) => item.id !== id));

  return (
    <ListSection title={t('rooms.invitations.title')} count={invitations.length}>
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
                void room
                  .acceptInvitation(invitation.id, invitation.room_id, invitation.room_name)
                  .then((joined) => {
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
    </ListSection>
  );
}
