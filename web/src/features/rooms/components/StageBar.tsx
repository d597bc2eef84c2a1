/**
 * Your place on a stage, above its people: in the audience, raise or lower your hand (an admin or
 * moderator may also take the stage themselves); as a speaker, step down to the audience. The
 * admin and moderators read how many hands are up.
 */
import type { RtcStageRole } from '@voice/protocol';
import { useTranslation } from 'react-i18next';
import { Button } from '../../../ui/Button.tsx';
import { useRoom } from '../useRoom.ts';

export function StageBar({
  you,
  role,
  moderates,
  hands,
  act,
}: {
  you: string;
  role: RtcStageRole;
  moderates: boolean;
  /** Raised hands in the room now. */
  hands: number;
  /** Runs a stage request, showing its failure. */
  act(action: () => Promise<unknown>): void;
}) {
  const { t } = useTranslation();
  const session = useRoom();
  const status = role.speaker
    ? t('rooms.stage.youAreSpeaker')
    : role.handRaised
      ? t('rooms.stage.handUp')
      : t('rooms.stage.youAreAudience');
  return (
    <div className="room-view__stage" data-role={role.speaker ? 'speaker' : 'audience'}>
      <p className="room-view__stage-status" role="status">
        {status}
        {moderates && hands > 0 && <span> {t('rooms.stage.hands', { count: hands })}</span>}
      </p>
      <div className="room-view__stage-actions">
        {role.speaker ? (
          <Button variant="secondary" onClick={() => act(() => session.moveToAudience(you))}>
            {t('rooms.stage.stepDown')}
          </Button>
        ) : (
          <>
            <Button
              variant={role.handRaised ? 'secondary' : 'primary'}
              aria-pressed={role.handRaised}
              onClick={() => act(() => session.raiseHand(!role.handRaised))}
            >
              {t(role.handRaised ? 'rooms.stage.lowerHand' : 'rooms.stage.raiseHand')}
            </Button>
            {moderates && (
              <Button variant="secondary" onClick={() => act(() => session.inviteToSpeak(you))}>
                {t('rooms.stage.speak')}
              </Button>
            )}
          </>
        )}
      </div>
    </div>
  );
}
