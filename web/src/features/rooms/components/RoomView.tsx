/**
 * Inside a room: who is there (avatar, name, Admin, Moderator or Acting admin label, a ring
 * while they speak, a muted icon, a volume slider each), the people talking first (on a stage:
 * the speakers, then the raised hands, then the audience; see StageBar), in tiles that
 * get smaller as the room fills so that a hundred fit on a screen (RoomPeople: in a larger room,
 * a search box and only the rows in view in the page). The admin and moderators mute
 * members (a mute the member cannot lift; they unmute them again) and remove them (asked first);
 * the admin names moderators, locks the room and deletes it (asked first). Mute, deafen and leave
 * are in the voice panel, which is on every page while you are in the room.
 */
import type { User } from '@voice/protocol';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../../../api/errorMessage.ts';
import { roomsApi } from '../../../api/rooms.ts';
import { currentLanguage } from '../../../i18n/i18n.ts';
import { useLocalSpeaking } from '../../../lib/useLocalVoice.ts';
import { useSession } from '../../../session/useSession.ts';
import { Button } from '../../../ui/Button.tsx';
import { ConfirmDialog } from '../../../ui/ConfirmDialog.tsx';
import { FormAlert } from '../../../ui/FormAlert.tsx';
import { IconButton } from '../../../ui/IconButton.tsx';
import { UserPlusIcon } from '../../../ui/icons.tsx';
import { groupDigits } from '../peopleList.ts';
import type { RoomMember } from '../RoomClient.ts';
import { type Density, densityFor, useSpeakerOrder } from '../speakerOrder.ts';
import { speaks } from '../speaking.ts';
import { useRoom } from '../useRoom.ts';
import { InviteFriendsDialog } from './InviteFriendsDialog.tsx';
import { MemberRow, Participant } from './Participant.tsx';
import { RoomPeople } from './RoomPeople.tsx';
import { RoomSettingsDialog } from './RoomSettingsDialog.tsx';
import { StageBar } from './StageBar.tsx';

const INVITED_NOTICE_MS = 5000;

const AVATAR_SIZE: Record<Density, number> = { roomy: 56, compact: 44, dense: 32 };

/** What the admin or a moderator is asked to confirm. */
type Confirming = { kind: 'kick'; member: RoomMember } | { kind: 'delete' };

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
  const [confirming, setConfirming] = useState<Confirming | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [deleteError, setDeleteError] = useState<string | null>(null);
  // Your own ring lights from your microphone here, not only when the server picks you.
  const youSpeak = useLocalSpeaking(session.onLocalLevel);
  const { speakers, others } = useSpeakerOrder(
    state.members.map((member) => member.id),
    state.members.filter((member) => isSpeaking(member, state.activeSpeaker)).map((member) => member.id),
  );

  if (!room || !user) return null;
  const isAdmin = room.admin.id === user.id;
  const moderates = isAdmin || state.moderator;
  const byId = new Map(state.members.map((member) => [member.id, member]));
  const people = state.members.length + 1;
  const density = densityFor(people);
  const myName = user.display_name || user.username;
  const stage = room.stage;
  // A stage shows its speakers (those talking first), then the raised hands, then the audience.
  const groups = stage
    ? [
        [...speakers, ...others].filter((id) => byId.get(id)?.speaker),
        state.members.filter((member) => !member.speaker && member.handRaised).map((member) => member.id),
        state.members.filter((member) => !member.speaker && !member.handRaised).map((member) => member.id),
      ]
    : [speakers, others];

  const failure = (error: unknown, failureKey: string) => {
    const message = errorMessage(error, currentLanguage());
    return `${t(failureKey)}: ${t(message.key, message.values)}`;
  };
  const adminAction = async (action: () => Promise<unknown>, failureKey: string) => {
    setAdminError(null);
    try {
      await action();
    } catch (error) {
      setAdminError(failure(error, failureKey));
    }
  };
  const deleteRoom = async () => {
    setDeleting(true);
    setDeleteError(null);
    try {
      await roomsApi.remove(room.id);
      setConfirming(null);
    } catch (error) {
      setDeleteError(failure(error, 'rooms.admin.deleteFailed'));
    } finally {
      setDeleting(false);
    }
  };
  const setModerator = (member: RoomMember, moderator: boolean) =>
    void adminAction(
      async () => session.roomChanged((await roomsApi.setModerator(room.id, member.id, moderator)).room),
      'rooms.admin.moderatorFailed',
    );

  return (
    <section className="room-view" aria-label={t('rooms.view.label', { name: room.name })}>
      <header className="room-view__header">
        <div>
          <h2 className="room-view__name">{room.name}</h2>
          {room.description && <p className="room-view__description">{room.description}</p>}
          <p className="room-view__status" role="status">
            {state.status === 'connected'
              ? groupDigits(t('rooms.view.connected', { count: people }), people, currentLanguage())
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
      {stage && state.status === 'connected' && (
        <StageBar
          you={user.id}
          role={state.stageRole}
          moderates={moderates}
          hands={groups[1]?.length ?? 0}
          act={(action) => void adminAction(action, 'rooms.stage.failed')}
        />
      )}
      <RoomPeople
        you={user.id}
        groups={groups}
        nameOf={(id) => (id === user.id ? myName : (byId.get(id)?.displayName ?? ''))}
        density={density}
        renderTile={(id, item) => {
          if (id === user.id) {
            return (
              <Participant
                key={id}
                item={item}
                avatarSize={AVATAR_SIZE[density]}
                name={myName}
                avatarUrl={user.avatar_url}
                you
                admin={isAdmin}
                moderator={state.moderator}
                acting={state.actingAdmin === user.id}
                muted={state.muted}
                mutedBy={state.mutedBy?.displayName ?? null}
                deafened={state.deafened}
                speaking={
                  state.stageRole.speaker && !state.muted && (youSpeak || state.activeSpeaker === user.id)
                }
                stage={stage ? state.stageRole : null}
              />
            );
          }
          const member = byId.get(id);
          if (!member) return null;
          // The admin acts on anyone; a moderator on members who are neither admin nor moderator.
          const canModerate = isAdmin || (moderates && !member.admin && !member.moderator);
          const canStage = stage && (member.speaker ? canModerate : moderates && member.handRaised);
          return (
            <MemberRow
              key={id}
              item={item}
              member={member}
              speaking={isSpeaking(member, state.activeSpeaker)}
              volume={state.volumes[member.id] ?? 1}
              canModerate={canModerate}
              onModerator={isAdmin ? (moderator) => setModerator(member, moderator) : null}
              isModerator={room.moderators.includes(member.id)}
              acting={state.actingAdmin === member.id}
              onKick={() => setConfirming({ kind: 'kick', member })}
              stage={stage}
              onStage={
                canStage
                  ? (speaker) =>
                      void adminAction(
                        () =>
                          speaker ? session.inviteToSpeak(member.id) : session.moveToAudience(member.id),
                        'rooms.stage.failed',
                      )
                  : null
              }
              avatarSize={AVATAR_SIZE[density]}
            />
          );
        }}
      />
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
            onClick={() => {
              setDeleteError(null);
              setConfirming({ kind: 'delete' });
            }}
          >
            {t('rooms.admin.delete')}
          </Button>
        </div>
      )}
      {confirming?.kind === 'kick' && (
        <ConfirmDialog
          title={t('rooms.confirm.kickTitle', { name: confirming.member.displayName })}
          confirmLabel={t('rooms.confirm.kick')}
          cancelLabel={t('rooms.confirm.cancel')}
          onCancel={() => setConfirming(null)}
          onConfirm={() => {
            session.kick(confirming.member.id);
            setConfirming(null);
          }}
        >
          {t('rooms.confirm.kickText')}
        </ConfirmDialog>
      )}
      {confirming?.kind === 'delete' && (
        <ConfirmDialog
          title={t('rooms.confirm.deleteTitle', { name: room.name })}
          confirmLabel={t('rooms.confirm.delete')}
          cancelLabel={t('rooms.confirm.cancel')}
          busy={deleting}
          error={deleteError}
          onCancel={() => setConfirming(null)}
          onConfirm={() => void deleteRoom()}
        >
          {t('rooms.confirm.deleteText')}
        </ConfirmDialog>
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
  return speaks(member.volume) || activeSpeaker === member.id;
}
