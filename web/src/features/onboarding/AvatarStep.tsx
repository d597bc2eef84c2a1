import { useTranslation } from 'react-i18next';
import type { AvatarChoice } from '../../lib/avatarChoice.ts';
import { AvatarPicker } from '../../ui/AvatarPicker.tsx';
import { Button } from '../../ui/Button.tsx';

interface Props {
  choice: AvatarChoice | null;
  onChoose(choice: AvatarChoice | null): void;
  /** The display name chosen in the first step, for the preview's initial. */
  name: string;
  /** Translation key of the problem with the choice. */
  errorKey: string | null;
  /** The action running, if any ('avatar' or 'skip' show it on their button); every button waits. */
  busy: string | null;
  onUse(): void;
  onSkip(): void;
  onBack(): void;
}

/**
 * Onboarding's second step: the avatar picker of profile settings, with "use this one",
 * "set it later" and "back".
 */
export function AvatarStep({ choice, onChoose, name, errorKey, busy, onUse, onSkip, onBack }: Props) {
  const { t } = useTranslation();
  const waiting = busy !== null;
  return (
    <div className="onboarding__form">
      <AvatarPicker
        legend={t('onboarding.avatar.legend')}
        value={choice}
        onChange={onChoose}
        name={name}
        error={errorKey ? t(errorKey) : null}
        disabled={waiting}
      />
      <div className="onboarding__actions">
        <Button block busy={busy === 'avatar'} disabled={waiting} onClick={onUse}>
          {t('onboarding.avatar.use')}
        </Button>
        <Button variant="ghost" block busy={busy === 'skip'} disabled={waiting} onClick={onSkip}>
          {t('onboarding.avatar.skip')}
        </Button>
        <Button variant="ghost" className="onboarding__back" disabled={waiting} onClick={onBack}>
          {t('onboarding.back')}
        </Button>
      </div>
    </div>
  );
}
