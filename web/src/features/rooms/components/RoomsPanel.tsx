/**
 * The rooms you may join (search, create, join with a password prompt when the room has one),
 * on the dashboard's Rooms tab and beside a room's own screen; the room you are in is marked,
 * and its button opens its screen. Joining opens the room's screen (app/voice/useFollowRoom).
 */
import type { Room } from '@voice/protocol';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { nameOf } from '../../../lib/people.ts';
import { roomPath } from '../../../session/paths.ts';
import { useSession } from '../../../session/useSession.ts';
import { Avatar } from '../../../ui/Avatar.tsx';
import { Button } from '../../../ui/Button.tsx';
import { EmptyState } from '../../../ui/EmptyState.tsx';
import { FormAlert } from '../../../ui/FormAlert.tsx';
import { RoomIcon, SearchIcon } from '../../../ui/icons.tsx';
import { PanelLoadFailed, PanelLoading } from '../../../ui/PanelStates.tsx';
import { useRoom } from '../useRoom.ts';
import { useRoomDirectory } from '../useRoomDirectory.ts';
import { CreateRoomDialog } from './CreateRoomDialog.tsx';
import { JoinPasswordDialog } from './JoinPasswordDialog.tsx';
import { RoomInvitations } from './RoomInvitations.tsx';
import './Rooms.css';

export function RoomsPanel({ showEnded = true }: { showEnded?: boolean }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const room = useRoom();
  const { user } = useSession();
  const directory = useRoomDirectory();
  const [creating, setCreating] = useState(false);
  const [asking, setAsking] = useState<Room | null>(null);
  const ended = showEnded ? room.state.ended : null;
  const current = room.state.status !== 'idle' ? room.state.room?.id : undefined;

  // Why a room cannot be joined now, said beside its disabled button rather than after a try
  // (a full room before any password prompt); the admin gets into their own locked room.
  const blockedReason = (target: Room): string | null => {
    if (target.memberCount !== null && target.memberCount >= target.maxParticipants)
      return 'errors.ROOM_FULL';
    if (target.locked && target.admin.id !== user?.id) return 'errors.ROOM_LOCKED';
    return null;
  };

  const join = (target: Room) => {
    if (target.id === current) {
      navigate(roomPath(target.id));
      return;
    }
    // The admin needs no password to their own room.
    if (target.hasPassword && target.admin.id !== user?.id) setAsking(target);
    else void room.join(target.id, { name: target.name });
  };

  return (
    <div className="rooms">
      <RoomInvitations />
      <div className="rooms__toolbar">
        <label className="rooms__search">
          <SearchIcon />
          <span className="visually-hidden">{t('rooms.search')}</span>
          <input
            type="search"
            value={directory.query}
            placeholder={t('rooms.search')}
            maxLength={100}
            onChange={(event) => directory.setQuery(event.target.value)}
          />
        </label>
        <Button onClick={() => setCreating(true)}>{t('rooms.create.action')}</Button>
      </div>
      {ended && (
        <FormAlert>
          {t(`rooms.ended.${ended}`)}{' '}
          <Button variant="ghost" onClick={room.dismiss}>
            {t('call.dismiss')}
          </Button>
        </FormAlert>
      )}
      {showEnded && room.state.error && !ended && (
        <FormAlert>{t(room.state.error.key, room.state.error.values)}</FormAlert>
      )}
      {directory.status === 'loading' && <PanelLoading />}
      {directory.status === 'error' && (
        <PanelLoadFailed
          title={t('rooms.loadFailed')}
          text={directory.error ? t(directory.error.key, directory.error.values) : ''}
          onRetry={directory.reload}
        />
      )}
      {directory.status === 'ready' && directory.rooms.length === 0 && (
        <EmptyState
          icon={<RoomIcon />}
          title={t('dashboard.empty.rooms.title')}
          text={t('dashboard.empty.rooms.text')}
        />
      )}
      {directory.status === 'ready' && directory.rooms.length > 0 && (
        <ul className="room-list" aria-label={t('rooms.listLabel')}>
          {directory.rooms.map((item) => (
            <li key={item.id} className="room-row" aria-current={item.id === current ? 'true' : undefined}>
              <div className="room-row__text">
                <p className="room-row__name">
                  {item.name}
                  {item.type === 'private' && (
                    <span className="room-row__tag">{t('rooms.type.private')}</span>
                  )}
                  {item.stage && <span className="room-row__tag">{t('rooms.stageTag')}</span>}
                  {item.hasPassword && <span className="room-row__tag">{t('rooms.passwordTag')}</span>}
                  {item.locked && <span className="room-row__tag">{t('rooms.lockedTag')}</span>}
                </p>
                {item.description && <p className="room-row__description">{item.description}</p>}
                <p className="room-row__meta">
                  {item.memberCount === null
                    ? // Unknown for now (the server cannot tell): a dash, not a misleading 0.
                      t('rooms.membersUnknown', { max: item.maxParticipants })
                    : t('rooms.members', { count: item.memberCount, max: item.maxParticipants })}
                  {' · '}
                  {t('rooms.adminBy', { name: nameOf(item.admin) })}
                </p>
                {item.participants.length > 0 && (
                  <ul className="room-row__people" aria-label={t('rooms.inRoom')}>
                    {item.participants.slice(0, 8).map((person) => (
                      <li key={person.id} title={nameOf(person)}>
                        <Avatar name={nameOf(person)} url={person.avatar_url} size={28} />
                        <span className="visually-hidden">{nameOf(person)}</span>
                      </li>
                    ))}
                  </ul>
                )}
              </div>
              {item.id === current ? (
                <Button onClick={() => join(item)} aria-label={t('rooms.openNamed', { name: item.name })}>
                  {t('rooms.open')}
                </Button>
              ) : (
                <div className="room-row__join">
                  <Button
                    variant="secondary"
                    onClick={() => join(item)}
                    busy={room.state.status === 'joining'}
                    disabled={blockedReason(item) !== null}
                    aria-label={t('rooms.joinNamed', { name: item.name })}
                    aria-describedby={blockedReason(item) ? `${item.id}-blocked` : undefined}
                  >
                    {t('rooms.join')}
                  </Button>
                  {blockedReason(item) && (
                    <span className="room-row__blocked" id={`${item.id}-blocked`}>
                      {t(blockedReason(item) as string)}
                    </span>
                  )}
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      {creating && (
        <CreateRoomDialog
          onClose={() => setCreating(false)}
          onCreated={(created, password) => {
            setCreating(false);
            directory.reload();
            void room.join(created.id, { password, name: created.name });
          }}
        />
      )}
      {asking && (
        <JoinPasswordDialog room={asking} onClose={() => setAsking(null)} onJoined={() => setAsking(null)} />
      )}
    </div>
  );
}
