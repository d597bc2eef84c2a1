import { type FormEvent, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import { authApi } from '../../api/auth.ts';
import { type ErrorMessage, errorMessage, hasErrorCode } from '../../api/errorMessage.ts';
import { PATHS } from '../../session/guards.tsx';
import { nextPathFrom } from '../../session/paths.ts';
import { finishHandoff, readLoginHandoff } from '../../session/prerendered.ts';
import { useSession } from '../../session/useSession.ts';
import { AuthLayout } from '../../ui/AuthLayout.tsx';
import { Button } from '../../ui/Button.tsx';
import { FormAlert } from '../../ui/FormAlert.tsx';
import { PasswordField } from '../../ui/PasswordField.tsx';
import { TextField } from '../../ui/TextField.tsx';

export function LoginPage() {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  // A shared room link opened signed out comes back here with where it led (?next=).
  const { search } = useLocation();
  const { signIn } = useSession();
  // What was typed into the prerendered form (session/prerendered.ts), if the page came with one.
  const [handoff] = useState(readLoginHandoff);
  const [username, setUsername] = useState(handoff?.username ?? '');
  const [password, setPassword] = useState(handoff?.password ?? '');
  const [error, setError] = useState<ErrorMessage | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const handoffSent = useRef(false);

  async function signInWith(name: string, secret: string) {
    if (!name.trim() || !secret) {
      setError({ key: 'auth.fillAllFields' });
      return;
    }
    setError(null);
    setSubmitting(true);
    try {
      signIn(await authApi.login({ username: name.trim(), password: secret }));
      navigate(nextPathFrom(search) ?? PATHS.dashboard, { replace: true });
    } catch (failure) {
      setError(
        hasErrorCode(failure, 'VALIDATION')
          ? { key: 'auth.fillAllFields' }
          : errorMessage(failure, i18n.language),
      );
      setSubmitting(false);
    }
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void signInWith(username, password);
  }

  // The caret goes back where it was in the prerendered form, before the first paint.
  useLayoutEffect(() => {
    finishHandoff();
    const field = handoff?.focused ? formRef.current?.elements.namedItem(handoff.focused) : null;
    if (field instanceof HTMLInputElement) {
      field.focus();
      field.setSelectionRange(field.value.length, field.value.length);
    }
  }, [handoff]);

  // A form sent before the app was there is sent now (once, StrictMode's second run included).
  // biome-ignore lint/correctness/useExhaustiveDependencies: sent once, with what was typed then
  useEffect(() => {
    if (!handoff?.submitted || handoffSent.current) return;
    handoffSent.current = true;
    void signInWith(handoff.username, handoff.password);
  }, [handoff]);

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
      <form ref={formRef} className="auth-form" onSubmit={submit} noValidate>
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
