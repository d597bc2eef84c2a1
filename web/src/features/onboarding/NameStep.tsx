import type { FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../ui/Button.tsx';
import { DisplayNameField } from '../../ui/DisplayNameField.tsx';

interface Props {
  name: string;
  onNameChange(name: string): void;
  /** Translation key of the problem with the name. */
  errorKey: string | null;
  busy: boolean;
  onSubmit(event: FormEvent<HTMLFormElement>): void;
}

/** Onboarding's first step: the display name, required. */
export function NameStep({ name, onNameChange, errorKey, busy, onSubmit }: Props) {
  const { t } = useTranslation();
  return (
    <form className="onboarding__form" onSubmit={onSubmit} noValidate>
      <DisplayNameField
        value={name}
        onChange={onNameChange}
        errorKey={errorKey}
        hint={t('onboarding.name.hint')}
        required
      />
      <Button type="submit" block busy={busy}>
        {t('onboarding.continue')}
      </Button>
    </form>
  );
}
