import type { User } from '@voice/protocol';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate } from 'react-router-dom';
import { errorMessageKey } from '../../api/errorMessage.ts';
import { profileApi } from '../../api/profile.ts';
import { needsOnboarding, PATHS } from '../../session/guards.tsx';
import { useSession } from '../../session/useSession.ts';
import { Button } from '../../ui/Button.tsx';
import { FormAlert } from '../../ui/FormAlert.tsx';
import { AuthLayout } from '../auth/AuthLayout.tsx';
import { focusFirstInvalid } from '../auth/focusFirstInvalid.ts';
import { AvatarPicker } from '../profile/AvatarPicker.tsx';
import type { AvatarChoice } from '../profile/avatarChoice.ts';
import { DisplayNameField } from '../profile/DisplayNameField.tsx';
import { displayNameProblemKey } from '../profile/displayName.ts';
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

  const stepNumber = STEPS.indexOf(step) + 1;
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
        <div className="onboarding__progress">
          <p className="onboarding__step">
            {t('onboarding.step', { current: stepNumber, total: STEPS.length })}
          </p>
          <div className="onboarding__bars" aria-hidden="true">
            {STEPS.map((s, index) => (
              <span
                key={s}
                className={`onboarding__bar${index < stepNumber ? ' onboarding__bar--done' : ''}`}
              />
            ))}
          </div>
        </div>
        {alertKey && <FormAlert>{t(alertKey)}</FormAlert>}
        {step === 'name' ? (
          <form className="onboarding__form" onSubmit={saveName} noValidate>
            <DisplayNameField
              value={name}
              onChange={(value) => {
                setName(value);
                setNameErrorKey(null);
              }}
              errorKey={nameErrorKey}
              hint={t('onboarding.name.hint')}
              required
            />
            <Button type="submit" block busy={busy === 'name'}>
              {t('onboarding.continue')}
            </Button>
          </form>
        ) : (
          <div className="onboarding__form">
            <AvatarPicker
              legend={t('onboarding.avatar.legend')}
              value={choice}
              onChange={(next) => {
                setChoice(next);
                setAvatarErrorKey(null);
              }}
              name={name}
              error={avatarErrorKey ? t(avatarErrorKey) : null}
              disabled={busy !== null}
            />
            <div className="onboarding__actions">
              <Button
                block
                busy={busy === 'avatar'}
                disabled={busy !== null}
                onClick={() => void confirmAvatar()}
              >
                {t('onboarding.avatar.use')}
              </Button>
              <Button
                variant="ghost"
                block
                busy={busy === 'skip'}
                disabled={busy !== null}
                onClick={() => void skipAvatar()}
              >
                {t('onboarding.avatar.skip')}
              </Button>
              <Button
                variant="ghost"
                className="onboarding__back"
                disabled={busy !== null}
                onClick={() => {
                  setAlertKey(null);
                  setStep('name');
                }}
              >
                {t('onboarding.back')}
              </Button>
            </div>
          </div>
        )}
      </div>
    </AuthLayout>
  );
}
