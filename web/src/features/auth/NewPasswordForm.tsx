import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { authApi } from '../../api/auth.ts';
import { type ErrorMessage, errorMessage, hasErrorCode } from '../../api/errorMessage.ts';
import { Button } from '../../ui/Button.tsx';
import { FormAlert } from '../../ui/FormAlert.tsx';
import { focusFirstInvalid } from '../../ui/focusFirstInvalid.ts';
import { LIMIT_VALUES, newPasswordProblems } from './fieldMessages.ts';
import { NewPasswordFields } from './NewPasswordFields.tsx';

type Field = 'password' | 'confirmPassword';
const FIELD_ORDER: readonly Field[] = ['password', 'confirmPassword'];

interface Props {
  /** The reset link's token, already verified. */
  token: string;
  /** How it ended: the password changed, or the link turned out to be used up meanwhile. */
  onDone(outcome: 'success' | 'invalid'): void;
}

/** The new password, twice, for a verified reset link. */
export function NewPasswordForm({ token, onDone }: Props) {
  const { t, i18n } = useTranslation();
  const [password, setPassword] = useState('');
  const [confirmPassword, setConfirmPassword] = useState('');
  const [fieldErrors, setFieldErrors] = useState<Partial<Record<Field, string>>>({});
  const [formError, setFormError] = useState<ErrorMessage | null>(null);
  const [submitting, setSubmitting] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    setFormError(null);
    const errors = newPasswordProblems(password, confirmPassword);
    setFieldErrors(errors);
    if (focusFirstInvalid(form, FIELD_ORDER, errors)) return;
    setSubmitting(true);
    try {
      await authApi.resetPassword({ token, password, confirmPassword });
      onDone('success');
    } catch (error) {
      if (hasErrorCode(error, 'RESET_TOKEN_INVALID')) onDone('invalid');
      else if (hasErrorCode(error, 'PASSWORDS_DO_NOT_MATCH')) {
        setFieldErrors({ confirmPassword: 'errors.PASSWORDS_DO_NOT_MATCH' });
      } else if (hasErrorCode(error, 'VALIDATION') && error.field === 'password') {
        setFieldErrors({ password: 'auth.password.invalid' });
      } else if (hasErrorCode(error, 'RATE_LIMITED')) setFormError(errorMessage(error, i18n.language));
      else setFormError({ key: 'resetPassword.failed' });
    } finally {
      setSubmitting(false);
    }
  }

  const message = (field: Field) => {
    const key = fieldErrors[field];
    return key ? t(key, LIMIT_VALUES) : null;
  };

  return (
    <form className="auth-form" onSubmit={submit} noValidate>
      {formError && <FormAlert>{t(formError.key, formError.values)}</FormAlert>}
      <NewPasswordFields
        label={t('auth.fields.newPassword')}
        autoFocus
        password={password}
        confirmPassword={confirmPassword}
        onPasswordChange={(value) => {
          setPassword(value);
          setFieldErrors(({ password: _, ...rest }) => rest);
        }}
        onConfirmChange={(value) => {
          setConfirmPassword(value);
          setFieldErrors(({ confirmPassword: _, ...rest }) => rest);
        }}
        errors={{ password: message('password'), confirmPassword: message('confirmPassword') }}
      />
      <Button type="submit" block busy={submitting} className="auth-form__submit">
        {submitting ? t('resetPassword.submitting') : t('resetPassword.submit')}
      </Button>
    </form>
  );
}
