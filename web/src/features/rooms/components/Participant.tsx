/**
 * A person's tile in a room: avatar (with a ring while they speak), name, Admin, Moderator or
 * Acting admin label, on a stage Speaker and a raised hand, muted and deafened icons; for the
 * others, their volume slider and, for the admin and moderators, mute, invite to speak or move
 * to the audience, moderator and remove buttons.
 */
import { type HTMLAttributes, type ReactNode, useId } from 'react';
import { useTranslation } from 'react-i18next';
import { Avatar } from '../../../ui/Avatar.tsx';
import { IconButton } from '../../../ui/IconButton.tsx';
import {
  HandIcon,
  HeadphonesOffIcon,
  MicIcon,
  MicOffIcon,
  ShieldIcon,
  StepDownIcon,
  UserMinusIcon,
} from '../../../ui/icons.tsx';
import type { RoomMember } from '../RoomClient.ts';
import { useRoom } from '../useRoom.ts';

/** What a list puts on a tile's `<li>` (its place in a virtualized list). */
export type TileItemProps = Pick<
  HTMLAttributes<HTMLLIElement>,
  'style' | 'aria-setsize' | 'aria-posinset'
> & {
  'data-person'?: string;
};

export function Participant({
  avatarSize,
  name,
  avatarUrl,
  you = false,
  admin,
  moderator,
  acting,
  muted,
  mutedBy,
  deafened,
  speaking,
  stage = null,
  item,
  children,
}: {
  avatarSize: number;
  name: string;
  avatarUrl: string | null;
  you?: boolean;
  admin: boolean;
  moderator: boolean;
  /** Standing in for the absent admin. */
  acting: boolean;
  muted: boolean;
  /** The name of the admin or moderator who muted them, if one did. */
  mutedBy: string | null;
  /** They hear nobody. */
  deafened: boolean;
  speaking: boolean;
  /** On a stage: whether they speak, and their hand; null elsewhere. */
  stage?: { speaker: boolean; handRaised: boolean } | null;
  /** Its place in a virtualized list. */
  item?: TileItemProps | undefined;
  children?: ReactNode;
}) {
  const { t } = useTranslation();
  const mutedLabel = mutedBy === null ? t('rooms.view.muted') : t('rooms.view.mutedBy', { name: mutedBy });
  return (
    <li
      className="participant"
      data-speaking={speaking}
      data-muted={muted}
      data-deafened={deafened}
      data-stage={stage ? (stage.speaker ? 'speaker' : stage.handRaised ? 'hand' : 'audience') : undefined}
      {...item}
    >
      <span className={`participant__avatar${speaking ? ' participant__avatar--speaking' : ''}`}>
        <Avatar name={name} url={avatarUrl} size={avatarSize} />
      </span>
      <span className="participant__name">
        {name}
        {you && <span className="participant__you"> {t('rooms.view.you')}</span>}
      </span>
      <span className="participant__labels">
        {admin && <span className="room-row__tag">{t('rooms.view.admin')}</span>}
        {moderator && <span className="room-row__tag">{t('rooms.view.moderator')}</span>}
        {acting && <span className="room-row__tag">{t('rooms.view.actingAdmin')}</span>}
        {stage?.speaker && <span className="room-row__tag">{t('rooms.view.speaker')}</span>}
        {stage?.handRaised && (
          <span className="participant__hand" title={t('rooms.view.handRaised')}>
            <HandIcon width="16" height="16" />
            <span className="visually-hidden">{t('rooms.view.handRaised')}</span>
          </span>
        )}
        {muted && (!stage || stage.speaker) && (
          <span className="participant__muted" title={mutedLabel}>
            <MicOffIcon width="16" height="16" />
            <span className="visually-hidden">{mutedLabel}</span>
          </span>
        )}
        {deafened && (
          <span className="participant__muted" title={t('rooms.view.deafened')}>
            <HeadphonesOffIcon width="16" height="16" />
            <span className="visually-hidden">{t('rooms.view.deafened')}</span>
          </span>
        )}
        {speaking && <span className="visually-hidden">{t('rooms.view.speaking')}</span>}
      </span>
      {children && <div className="participant__controls">{children}</div>}
    </li>
  );
}

export function MemberRow({
  member,
  speaking,
  volume,
  canModerate,
  onModerator,
  isModerator,
  acting,
  onKick,
  stage,
  onStage,
  avatarSize,
  item,
}: {
  member: RoomMember;
  speaking: boolean;
  volume: number;
  /** You may mute, unmute and remove them. */
  canModerate: boolean;
  /** The admin's: names them a moderator or unnames them; null for everyone else. */
  onModerator: ((moderator: boolean) => void) | null;
  isModerator: boolean;
  acting: boolean;
  /** Asks to remove them. */
  onKick: () => void;
  /** The room is a stage: their place on it is shown. */
  stage: boolean;
  /** You may invite them to speak (their hand is up) or move them to the audience; null otherwise. */
  onStage: ((speaker: boolean) => void) | null;
  avatarSize: number;
  item?: TileItemProps | undefined;
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
      moderator={member.moderator}
      acting={acting}
      muted={member.muted}
      mutedBy={member.mutedBy?.displayName ?? null}
      deafened={member.deafened}
      speaking={speaking}
      stage={stage ? { speaker: member.speaker, handRaised: member.handRaised } : null}
      item={item}
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
      {(canModerate || onModerator || onStage) && (
        <span className="participant__actions">
          {onStage &&
            (member.speaker ? (
              <IconButton
                label={t('rooms.stage.moveToAudience', { name: member.displayName })}
                onClick={() => onStage(false)}
              >
                <StepDownIcon />
              </IconButton>
            ) : (
              <IconButton
                label={t('rooms.stage.invite', { name: member.displayName })}
                className="participant__invite"
                onClick={() => onStage(true)}
              >
                <MicIcon />
              </IconButton>
            ))}
          {canModerate &&
            (!stage || member.speaker) &&
            (member.mutedBy ? (
              <IconButton
                label={t('rooms.admin.unmute', { name: member.displayName })}
                onClick={() => session.unmutePeer(member.id)}
              >
                <MicIcon />
              </IconButton>
            ) : (
              <IconButton
                label={t('rooms.admin.mute', { name: member.displayName })}
                onClick={() => session.mutePeer(member.id)}
              >
                <MicOffIcon />
              </IconButton>
            ))}
          {onModerator && (
            <IconButton
              label={t(isModerator ? 'rooms.admin.unmakeModerator' : 'rooms.admin.makeModerator', {
                name: member.displayName,
              })}
              aria-pressed={isModerator}
              onClick={() => onModerator(!isModerator)}
            >
              <ShieldIcon />
            </IconButton>
          )}
          {canModerate && (
            <IconButton label={t('rooms.admin.kick', { name: member.displayName })} onClick={onKick}>
              <UserMinusIcon />
            </IconButton>
          )}
        </span>
      )}
    </Participant>
  );
}
