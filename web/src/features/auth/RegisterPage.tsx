import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import { authApi } from '../../api/auth.ts';
import { type ErrorMessage, errorMessage, errorMessageKey, hasErrorCode } from '../../api/errorMessage.ts';
import { currentLanguage } from '../../i18n/i18n.ts';
import { PATHS } from '../../session/guards.tsx';
import { useSession } from '../../session/useSession.ts';
import { AuthLayout } from '../../ui/AuthLayout.tsx';
import { Button } from '../../ui/Button.tsx';
import { FormAlert } from '../../ui/FormAlert.tsx';
import { focusFirstInvalid } from '../../ui/focusFirstInvalid.ts';
import { INVALID_FIELD_KEYS } from './fieldMessages.ts';
import { RegisterFields } from './RegisterFields.tsx';
import {
  EMPTY_REGISTRATION,
  FIELD_ORDER,
  type Field,
  type FieldErrors,
  fieldOfError,
  type RegisterValues,
  validateRegistration,
} from './registerForm.ts';
import { useUsernameAvailability } from './useUsernameAvailability.ts';

/** /register (SPEC section 2): sign-up with a live username check and the terms to accept. */
export function RegisterPage() {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const { signIn } = useSession();
  const [values, setValues] = useState<RegisterValues>(EMPTY_REGISTRATION);
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<ErrorMessage | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const availability = useUsernameAvailability(values.username);

  const change = <F extends Field>(field: F, value: RegisterValues[F]) => {
    setValues((previous) => ({ ...previous, [field]: value }));
    setFieldErrors(({ [field]: _, ...rest }) => rest);
  };

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    setFormError(null);
    const errors = validateRegistration(values, availability);
    setFieldErrors(errors);
    if (focusFirstInvalid(form, FIELD_ORDER, errors)) return;
    setSubmitting(true);
    try {
      const auth = await authApi.register({
        username: values.username,
        email: values.email.trim(),
        password: values.password,
        displayName: values.displayName.trim() || undefined,
        acceptTerms: values.acceptTerms,
        language: currentLanguage(),
      });
      signIn(auth, { newAccount: true });
      navigate(PATHS.dashboard, { replace: true });
    } catch (error) {
      setSubmitting(false);
      const field = fieldOfError(error);
      if (field) {
        const key = hasErrorCode(error, 'VALIDATION') ? INVALID_FIELD_KEYS[field] : errorMessageKey(error);
        const serverErrors = { [field]: key ?? 'errors.VALIDATION' };
        setFieldErrors(serverErrors);
        focusFirstInvalid(form, FIELD_ORDER, serverErrors);
      } else {
        setFormError(errorMessage(error, i18n.language));
      }
    }
  }

  return (
    <AuthLayout
      title={t('register.title')}
      subtitle={t('register.subtitle')}
      footer={
        <>
          {t('register.haveAccount')}
          <Link to={PATHS.login}>{t('register.toLogin')}</Link>
        </>
      }
    >
      <form className="auth-form" onSubmit={submit} noValidate>
        {formError && <FormAlert>{t(formError.key, formError.values)}</FormAlert>}
        <RegisterFields values={values} onChange={change} errors={fieldErrors} availability={availability} />
        <Button type="submit" block busy={submitting} className="auth-form__submit">
          {submitting ? t('register.submitting') : t('register.submit')}
        </Button>
      </form>
    </AuthLayout>
  );
}
