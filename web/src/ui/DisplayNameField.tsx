import { LIMITS } from '@voice/protocol';
import { useTranslation } from 'react-i18next';
import { NAME_LIMITS } from '../lib/displayName.ts';
import { TextField } from './TextField.tsx';

interface DisplayNameFieldProps {
  value: string;
  /** Called with the new text; the caller clears its error. */
  onChange(value: string): void;
  /** Translation key of the problem with the name, from displayNameProblemKey(). */
  errorKey: string | null;
  hint: string;
  required?: boolean;
  disabled?: boolean;
}

/** The display-name input of onboarding and profile settings: one rule, one field. */
export function DisplayNameField({
  value,
  onChange,
  errorKey,
  hint,
  required,
  disabled,
}: DisplayNameFieldProps) {
  const { t } = useTranslation();
  return (
    <TextField
      label={t('profile.displayName')}
      name="displayName"
      autoComplete="nickname"
      maxLength={LIMITS.displayNameMax}
      value={value}
      onChange={(event) => onChange(event.target.value)}
      hint={hint}
      error={errorKey ? t(errorKey, NAME_LIMITS) : null}
      required={required}
      disabled={disabled}
    />
  );
}
