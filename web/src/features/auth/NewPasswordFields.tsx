import { useTranslation } from 'react-i18next';
import { PasswordField } from '../../ui/PasswordField.tsx';
import { LIMIT_VALUES } from './fieldMessages.ts';

interface Props {
  /** The first field's label: "Password" at sign-up, "New password" for a reset. */
  label: string;
  password: string;
  confirmPassword: string;
  onPasswordChange(value: string): void;
  onConfirmChange(value: string): void;
  /** Translated messages of the two fields' problems, if any. */
  errors: { password: string | null; confirmPassword: string | null };
  autoFocus?: boolean;
}

/** A new password and its confirmation, the rules as the hint: sign-up and password reset. */
export function NewPasswordFields(props: Props) {
  const { t } = useTranslation();
  return (
    <>
      <PasswordField
        label={props.label}
        name="password"
        autoComplete="new-password"
        autoFocus={props.autoFocus}
        value={props.password}
        onChange={(event) => props.onPasswordChange(event.target.value)}
        hint={t('auth.password.rules', LIMIT_VALUES)}
        error={props.errors.password}
        required
      />
      <PasswordField
        label={t('auth.fields.confirmPassword')}
        name="confirmPassword"
        autoComplete="new-password"
        value={props.confirmPassword}
        onChange={(event) => props.onConfirmChange(event.target.value)}
        error={props.errors.confirmPassword}
        required
      />
    </>
  );
}
