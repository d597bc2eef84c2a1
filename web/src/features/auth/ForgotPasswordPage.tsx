import { isValidEmail } from '@voice/protocol';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { authApi } from '../../api/auth.ts';
import { type ErrorMessage, errorMessage, hasErrorCode } from '../../api/errorMessage.ts';
import { PATHS } from '../../session/guards.tsx';
import { AuthLayout } from '../../ui/AuthLayout.tsx';
import { Button } from '../../ui/Button.tsx';
import { FormAlert } from '../../ui/FormAlert.tsx';
import { focusFirstInvalid } from '../../ui/focusFirstInvalid.ts';
import { MailIcon } from '../../ui/icons.tsx';
import { TextField } from '../../ui/TextField.tsx';

export function ForgotPasswordPage() {
  const { t, i18n } = useTranslation();
  const [email, setEmail] = useState('');
  const [fieldErrorKey, setFieldErrorKey] = useState<string | null>(null);
  const [formError, setFormError] = useState<ErrorMessage | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [sentTo, setSentTo] = useState<string | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const address = email.trim();
    setFormError(null);
    if (!address || !isValidEmail(address)) {
      setFieldErrorKey(address ? 'auth.email.invalid' : 'auth.required');
      focusFirstInvalid(event.currentTarget, ['email'], { email: true });
      return;
    }
    setSubmitting(true);
    try {
      await authApi.forgotPassword(address);
      setSentTo(address);
    } catch (error) {
      if (hasErrorCode(error, 'VALIDATION')) setFieldErrorKey('auth.email.invalid');
      else if (hasErrorCode(error, 'RATE_LIMITED')) setFormError(errorMessage(error, i18n.language));
      else setFormError({ key: 'errors.RESET_EMAIL_FAILED' });
    } finally {
      setSubmitting(false);
    }
  }

  if (sentTo) {
    return (
      <AuthLayout
        title={t('forgotPassword.sentTitle')}
        subtitle={t('forgotPassword.sentText', { email: sentTo })}
        icon={<MailIcon />}
      >
        <div className="auth-card__actions">
          <p className="auth-card__note">{t('forgotPassword.sentHint')}</p>
          <Link to={PATHS.login} className="button button--primary button--block">
            {t('forgotPassword.backToLogin')}
          </Link>
          <Button variant="ghost" block onClick={() => setSentTo(null)}>
            {t('forgotPassword.tryAnother')}
          </Button>
        </div>
      </AuthLayout>
    );
  }

  return (
    <AuthLayout
      title={t('forgotPassword.title')}
      subtitle={t('forgotPassword.subtitle')}
      footer={
        <>
          {t('forgotPassword.remembered')}
          <Link to={PATHS.login}>{t('forgotPassword.toLogin')}</Link>
        </>
      }
    >
      <form className="auth-form" onSubmit={submit} noValidate>
        {formError && <FormAlert>{t(formError.key, formError.values)}</FormAlert>}
        <TextField
          label={t('auth.fields.email')}
          name="email"
          type="email"
          autoComplete="email"
          autoFocus
          autoCapitalize="none"
          spellCheck={false}
          value={email}
          onChange={(event) => {
            setEmail(event.target.value);
            setFieldErrorKey(null);
          }}
          error={fieldErrorKey ? t(fieldErrorKey) : null}
          required
        />
        <Button type="submit" block busy={submitting} className="auth-form__submit">
          {submitting ? t('forgotPassword.submitting') : t('forgotPassword.submit')}
        </Button>
      </form>
    </AuthLayout>
  );
}
