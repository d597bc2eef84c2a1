import type { User } from '@voice/protocol';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate } from 'react-router-dom';
import { errorMessageKey } from '../../api/errorMessage.ts';
import { profileApi } from '../../api/profile.ts';
import type { AvatarChoice } from '../../lib/avatarChoice.ts';
import { displayNameProblemKey } from '../../lib/displayName.ts';
import { needsOnboarding, PATHS } from '../../session/guards.tsx';
import { useSession } from '../../session/useSession.ts';
import { AuthLayout } from '../../ui/AuthLayout.tsx';
import { FormAlert } from '../../ui/FormAlert.tsx';
import { focusFirstInvalid } from '../../ui/focusFirstInvalid.ts';
import { AvatarStep } from './AvatarStep.tsx';
import { NameStep } from './NameStep.tsx';
import { OnboardingProgress } from './OnboardingProgress.tsx';
import './OnboardingPage.css';

type Step = 'name' | 'avatar';
const STEPS: readonly Step[] = ['name', 'avatar'];

/**
 * First sign-in (SPEC section 4, "Onboarding"): a display name, saved at once, then an
 * avatar, which may be skipped ("set it later"). Finishing sends completeOnboarding.
 */
export function OnboardingPage() {
  const { t } = useTranslation();
  const { user, updateUser, signOut } = useSession();
  // Judged once: the profile saved in step 1 already counts as onboarded on the server.
  const [alreadyDone] = useState(() => !needsOnboarding(user));
  const [step, setStep] = useState<Step>('name');
  const [name, setName] = useState(user?.display_name ?? '');
  const [nameErrorKey, setNameErrorKey] = useState<string | null>(null);
  const [choice, setChoice] = useState<AvatarChoice | null>(null);
  const [avatarErrorKey, setAvatarErrorKey] = useState<string | null>(null);
  const [alertKey, setAlertKey] = useState<string | null>(null);
  const [busy, setBusy] = useState<'name' | 'avatar' | 'skip' | null>(null);
  const [finished, setFinished] = useState(false);
  const shownStep = useRef(step);

  // A new step replaces the button that had focus: move focus to the card's heading, which
  // AuthLayout renders, so screen readers announce the step and keyboard users start at its top.
  useEffect(() => {
    if (shownStep.current === step) return;
    shownStep.current = step;
    const heading = document.getElementById('auth-card-title');
    heading?.setAttribute('tabindex', '-1');
    heading?.focus();
  }, [step]);

  if (!user) return null;
  if (alreadyDone || finished) return <Navigate to={PATHS.dashboard} replace />;

  const finish = (completed: User) => {
    updateUser(completed);
    setFinished(true);
  };

  async function saveName(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setAlertKey(null);
    const trimmed = name.trim();
    const problem = displayNameProblemKey(trimmed);
    setNameErrorKey(problem);
    if (problem) {
      focusFirstInvalid(event.currentTarget, ['displayName'], { displayName: problem });
      return;
    }
    setBusy('name');
    try {
      await profileApi.update({ display_name: trimmed });
      setName(trimmed);
      setStep('avatar');
    } catch (error) {
      console.warn('Display name update failed', error);
      setAlertKey('onboarding.errors.displayName');
    } finally {
      setBusy(null);
    }
  }

  async function confirmAvatar() {
    setAlertKey(null);
    setAvatarErrorKey(null);
    if (!choice || choice.kind === 'current') {
      setAvatarErrorKey('avatars.required');
      return;
    }
    setBusy('avatar');
    try {
      if (choice.kind === 'photo') await profileApi.uploadAvatar(choice.file);
    } catch (error) {
      console.warn('Avatar upload failed', error);
      setAlertKey('onboarding.errors.avatar');
      setAvatarErrorKey(errorMessageKey(error));
      setBusy(null);
      return;
    }
    try {
      const body = choice.kind === 'stock' ? { avatar: choice.id } : {};
      finish((await profileApi.update({ ...body, completeOnboarding: true })).user);
    } catch (error) {
      console.warn('Completing onboarding failed', error);
      setAlertKey(choice.kind === 'stock' ? 'onboarding.errors.avatar' : 'onboarding.errors.setup');
      setBusy(null);
    }
  }

  async function skipAvatar() {
    setAlertKey(null);
    setAvatarErrorKey(null);
    setBusy('skip');
    try {
      finish((await profileApi.update({ completeOnboarding: true })).user);
    } catch (error) {
      console.warn('Completing onboarding failed', error);
      setAlertKey('onboarding.errors.setup');
      setBusy(null);
    }
  }

  const title = step === 'name' ? t('onboarding.name.title') : t('onboarding.avatar.title');
  const subtitle = step === 'name' ? t('onboarding.name.subtitle') : t('onboarding.avatar.subtitle');

  return (
    <AuthLayout
      title={title}
      subtitle={subtitle}
      footer={
        <span className="onboarding__signed-in">
          {t('onboarding.signedInAs', { username: user.username })}
          <button type="button" className="onboarding__sign-out" onClick={() => void signOut()}>
            {t('onboarding.signOut')}
          </button>
        </span>
      }
    >
      <div className="onboarding">
        <OnboardingProgress steps={STEPS} current={step} />
        {alertKey && <FormAlert>{t(alertKey)}</FormAlert>}
        {step === 'name' ? (
          <NameStep
            name={name}
            onNameChange={(value) => {
              setName(value);
              setNameErrorKey(null);
            }}
            errorKey={nameErrorKey}
            busy={busy === 'name'}
            onSubmit={saveName}
          />
        ) : (
          <AvatarStep
            choice={choice}
            onChoose={(next) => {
              setChoice(next);
              setAvatarErrorKey(null);
            }}
            name={name}
            errorKey={avatarErrorKey}
            busy={busy}
            onUse={() => void confirmAvatar()}
            onSkip={() => void skipAvatar()}
            onBack={() => {
              setAlertKey(null);
              setStep('name');
            }}
          />
        )}
      </div>
    </AuthLayout>
  );
}
