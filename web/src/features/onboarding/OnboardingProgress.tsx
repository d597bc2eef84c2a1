import { useTranslation } from 'react-i18next';

/** "Step 1 of 2" with a bar per step, those up to the current one filled. */
export function OnboardingProgress({ steps, current }: { steps: readonly string[]; current: string }) {
  const { t } = useTranslation();
  const number = steps.indexOf(current) + 1;
  return (
    <div className="onboarding__progress">
      <p className="onboarding__step">{t('onboarding.step', { current: number, total: steps.length })}</p>
      <div className="onboarding__bars" aria-hidden="true">
        {steps.map((step, index) => (
          <span key={step} className={`onboarding__bar${index < number ? ' onboarding__bar--done' : ''}`} />
        ))}
      </div>
    </div>
  );
}
