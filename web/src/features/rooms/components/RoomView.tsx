/**
 * Inside a room: who is there (avatar, name, Admin label, a ring while they speak, a muted
 * icon, a volume slider each), the people talking first, in tiles that get smaller as the room
 * fills so that a hundred fit on a screen; and, for the admin, muting and removing members,
 * locking the room and deleting it. Mute, deafen and leave are in the voice panel, which is on
 * every page while you are in the room.
 */
import type { User } from '@voice/protocol';
import { useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../../api/errorMessage.ts';
import { roomsApi } from '../../../api/rooms.ts';
import { currentLanguage } from '../../../i18n/i18n.ts';
import { useLocalVoice } from '../../../lib/useLocalVoice.ts';
import { useSession } from '../../../session/useSession.ts';
import { Avatar } from '../../../ui/Avatar.tsx';
import { Button } from '../../../ui/Button.tsx';
import { FormAlert } from '../../../ui/FormAlert.tsx';
import { IconButton } from '../../../ui/IconButton.tsx';
import { MicOffIcon, UserMinusIcon, UserPlusIcon } from '../../../ui/icons.tsx';
import type { RoomMember } from '../RoomClient.ts';
import { type Density, densityFor, useSpeakerOrder } from '../speakerOrder.ts';
import { useRoom } from '../useRoom.ts';
import { InviteFriendsDialog } from './InviteFriendsDialog.tsx';
import { RoomSettingsDialog } from './RoomSettingsDialog.tsx';

const INVITED_NOTICE_MS = 5000;

const AVATAR_SIZE: Record<Density, number> = { roomy: 56, compact: 44, dense: 32 };

/** Audio levels above this (dBov) show the speaking ring. */
const SPEAKING_DBOV = -60;

export function RoomView({ friends }: { friends: readonly User[] }) {
  const { t } = useTranslation();
  const { user } = useSession();
  const session = useRoom();
  const { state } = session;
  const room = state.room;
  const [inviting, setInviting] = useState(false);
  // "Invitations sent." for a few seconds after the dialog closes.
  const [invited, setInvited] = useState(false);
  useEffect(() => {
    if (!invited) return;
    const timer = window.setTimeout(() => setInvited(false), INVITED_NOTICE_MS);
    return () => window.clearTimeout(timer);
  }, [invited]);
  const [editing, setEditing] = useState(false);
  const [adminError, setAdminError] = useState<string | null>(null);
  // Your own ring lights from your microphone here, not only when the server picks you.
  const { speaking: youSpeak } = useLocalVoice(session.onLocalLevel);
  const order = useSpeakerOrder(
    state.members.map((member) => member.id),
    state.members.filter((member) => isSpeaking(member, state.activeSpeaker)).map((member) => member.id),
  );

  if (!room || !user) return null;
  const isAdmin = room.admin.id === user.id;
  const byId = new Map(state.members.map((member) => [member.id, member]));
  const density = densityFor(state.members.length + 1);
  const myName = user.display_name || user.username;

  const adminAction = async (action: () => Promise<unknown>, failureKey: string) => {
    setAdminError(null);
    try {
      await action();
    } catch (error) {
      const message = errorMessage(error, currentLanguage());
      setAdminError(`${t(failureKey)}: ${t(message.key, message.values)}`);
    }
  };

  return (
    <section className="room-view" aria-label={t('rooms.view.label', { name: room.name })}>
      <header className="room-view__header">
        <div>
          <h2 className="room-view__name">{room.name}</h2>
          {room.description && <p className="room-view__description">{room.description}</p>}
          <p className="room-view__status" role="status">
            {state.status === 'connected'
              ? t('rooms.view.connected', { count: state.members.length + 1 })
              : state.status === 'reconnecting'
                ? t('rooms.view.reconnecting')
                : t('rooms.view.joining')}
          </p>
        </div>
        <IconButton label={t('rooms.invite.action')} onClick={() => setInviting(true)}>
          <UserPlusIcon />
        </IconButton>
      </header>
      {adminError && <FormAlert>{adminError}</FormAlert>}
      <ul className="room-view__people" aria-label={t('rooms.view.people')} data-density={density}>
        <Participant
          avatarSize={AVATAR_SIZE[density]}
          name={myName}
          avatarUrl={user.avatar_url}
          you
          admin={isAdmin}
          muted={state.muted}
          speaking={!state.muted && (youSpeak || state.activeSpeaker === user.id)}
        />
        {order.map((id) => {
          const member = byId.get(id);
          if (!member) return null;
          return (
            <MemberRow
              key={member.id}
              member={member}
              speaking={isSpeaking(member, state.activeSpeaker)}
              volume={state.volumes[member.id] ?? 1}
              canModerate={isAdmin}
              avatarSize={AVATAR_SIZE[density]}
            />
          );
        })}
      </ul>
      {isAdmin && (
        <div className="room-view__admin">
          <Button
            variant="secondary"
            onClick={() =>
              void adminAction(
                async () =>
                  session.roomChanged((await roomsApi.update(room.id, { locked: !room.locked })).room),
                'rooms.admin.lockFailed',
              )
            }
          >
            {t(room.locked ? 'rooms.admin.unlock' : 'rooms.admin.lock')}
          </Button>
          <Button variant="secondary" onClick={() => setEditing(true)}>
            {t('rooms.settings.title')}
          </Button>
          <Button
            variant="secondary"
            onClick={() => void adminAction(() => roomsApi.remove(room.id), 'rooms.admin.deleteFailed')}
          >
            {t('rooms.admin.delete')}
          </Button>
        </div>
      )}
      {inviting && (
        <InviteFriendsDialog
          roomId={room.id}
          friends={friends}
          memberIds={new Set(state.members.map((member) => member.id))}
          onClose={() => setInviting(false)}
          onSent={() => {
            setInviting(false);
            setInvited(true);
          }}
        />
      )}
      {invited && (
        <p className="room-view__notice" role="status">
          {t('rooms.invite.sent')}
        </p>
      )}
      {editing && (
        <RoomSettingsDialog
          room={room}
          onClose={() => setEditing(false)}
          onSaved={(saved) => {
            session.roomChanged(saved);
            setEditing(false);
          }}
        />
      )}
    </section>
  );
}

function isSpeaking(member: RoomMember, activeSpeaker: string | null): boolean {
  if (member.muted) return false;
  return (member.volume !== null && member.volume > SPEAKING_DBOV) || activeSpeaker === member.id;
}

function Participant({
  avatarSize,
  name,
  avatarUrl,
  you = false,
  admin,
  muted,
  speaking,
  children,
}: {
  avatarSize: number;
  name: string;
  avatarUrl: string | null;
  you?: boolean;
  admin: boolean;
  muted: boolean;
  speaking: boolean;
  children?: React.ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <li className="participant" data-speaking={speaking} data-muted={muted}>
      <span className={`participant__avatar${speaking ? ' participant__avatar--speaking' : ''}`}>
        <Avatar name={name} url={avatarUrl} size={avatarSize} />
      </span>
      <span className="participant__name">
        {name}
        {you && <span className="participant__you"> {t('rooms.view.you')}</span>}
      </span>
      <span className="participant__labels">
        {admin && <span className="room-row__tag">{t('rooms.view.admin')}</span>}
        {muted && (
          <span className="participant__muted" title={t('rooms.view.muted')}>
            <MicOffIcon width="16" height="16" />
            <span className="visually-hidden">{t('rooms.view.muted')}</span>
          </span>
        )}
        {speaking && <span className="visually-hidden">{t('rooms.view.speaking')}</span>}
      </span>
      {children}
    </li>
  );
}

function MemberRow({
  member,
  speaking,
  volume,
  canModerate,
  avatarSize,
}: {
  member: RoomMember;
  speaking: boolean;
  volume: number;
  canModerate: boolean;
  avatarSize: number;
}) {
  const { t } = useTranslation();
  const session = useRoom();
  const sliderId = useId();
  return (
    <Participant
      avatarSize={avatarSize}
      name={member.displayName}
      avatarUrl={member.avatarUrl}
      admin={member.admin}
      muted={member.muted}
      speaking={speaking}
    >
      <label className="participant__volume" htmlFor={sliderId}>
        <span className="visually-hidden">{t('rooms.view.volume', { name: member.displayName })}</span>
        <input
          id={sliderId}
          type="range"
          min={0}
          max={200}
          step={5}
          value={Math.round(volume * 100)}
          aria-valuetext={`${Math.round(volume * 100)}%`}
          onChange={(event) => session.setVolume(member.id, Number(event.target.value) / 100)}
        />
      </label>
      {canModerate && (
        <span className="participant__actions">
          <IconButton
            label={t('rooms.admin.mute', { name: member.displayName })}
            disabled={member.muted}
            onClick={() => session.mutePeer(member.id)}
          >
            <MicOffIcon />
          </IconButton>
          <IconButton
            label={t('rooms.admin.kick', { name: member.displayName })}
            onClick={() => session.kick(member.id)}
          >
            <UserMinusIcon />
          </IconButton>
        </span>
      )}
    </Participant>
  );
}
