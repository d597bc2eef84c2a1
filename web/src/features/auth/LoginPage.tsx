import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import { authApi } from '../../api/auth.ts';
import { type ErrorMessage, errorMessage, hasErrorCode } from '../../api/errorMessage.ts';
import { PATHS } from '../../session/guards.tsx';
import { useSession } from '../../session/useSession.ts';
import { Button } from '../../ui/Button.tsx';
import { FormAlert } from '../../ui/FormAlert.tsx';
import { PasswordField } from '../../ui/PasswordField.tsx';
import { TextField } from '../../ui/TextField.tsx';
import { AuthLayout } from './AuthLayout.tsx';

export function LoginPage() {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const { signIn } = useSession();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<ErrorMessage | null>(null);
  const [submitting, setSubmitting] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!username.trim() || !password) {
      setError({ key: 'auth.fillAllFields' });
      return;
    }
    setError(null);
    setSubmitting(true);
    try {
      signIn(await authApi.login({ username: username.trim(), password }));
      navigate(PATHS.dashboard, { replace: true });
    } catch (failure) {
      setError(
        hasErrorCode(failure, 'VALIDATION')
          ? { key: 'auth.fillAllFields' }
          : errorMessage(failure, i18n.language),
      );
      setSubmitting(false);
    }
  }

  // With "fill in all fields" showing, mark the fields that are still empty.
  const missing = error?.key === 'auth.fillAllFields';

  return (
    <AuthLayout
      title={t('login.title')}
      subtitle={t('login.subtitle')}
      footer={
        <>
          {t('login.noAccount')}
          <Link to={PATHS.register}>{t('login.toRegister')}</Link>
        </>
      }
    >
      <form className="auth-form" onSubmit={submit} noValidate>
        {error && <FormAlert>{t(error.key, error.values)}</FormAlert>}
        <TextField
          label={t('auth.fields.login')}
          name="username"
          autoComplete="username"
          autoFocus
          autoCapitalize="none"
          spellCheck={false}
          value={username}
          onChange={(event) => setUsername(event.target.value)}
          invalid={missing && !username.trim()}
          required
        />
        <PasswordField
          label={t('auth.fields.password')}
          name="password"
          autoComplete="current-password"
          value={password}
          onChange={(event) => setPassword(event.target.value)}
          invalid={missing && !password}
          required
        />
        <div className="auth-form__row">
          <Link to={PATHS.forgotPassword}>{t('login.forgotPassword')}</Link>
        </div>
        <Button type="submit" block busy={submitting} className="auth-form__submit">
          {submitting ? t('login.submitting') : t('login.submit')}
        </Button>
      </form>
    </AuthLayout>
  );
}
