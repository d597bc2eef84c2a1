import { passwordProblem } from '@voice/protocol';
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import { authApi } from '../../api/auth.ts';
import { hasErrorCode } from '../../api/errorMessage.ts';
import { PATHS } from '../../session/guards.tsx';
import { Button } from '../../ui/Button.tsx';
import { FormAlert } from '../../ui/FormAlert.tsx';
import { AlertIcon, CheckIcon } from '../../ui/icons.tsx';
import { PasswordField } from '../../ui/PasswordField.tsx';
import { AuthLayout } from './AuthLayout.tsx';
import { LIMIT_VALUES, PASSWORD_PROBLEM_KEYS } from './fieldMessages.ts';
import { focusFirstInvalid } from './focusFirstInvalid.ts';

/** SPEC section 4 "Password reset": verifying, then valid or invalid, then success. */
type LinkState = 'verifying' | 'valid' | 'invalid' | 'success' | 'unreachable';

type Field = 'password' | 'confirmPassword';
const FIELD_ORDER: readonly Field[] = ['password', 'confirmPassword'];

export function ResetPasswordPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [state, setState] = useState<LinkState>(token ? 'verifying' : 'invalid');
  const [password, setPassword] = useState('');
  const [confirmPassword, setConfirmPassword] = useState('');
  const [fieldErrors, setFieldErrors] = useState<Partial<Record<Field, string>>>({});
  const [formErrorKey, setFormErrorKey] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  const verify = useCallback(
    (isCurrent: () => boolean = () => true) => {
      if (!token) {
        setState('invalid');
        return;
      }
      setState('verifying');
      authApi.verifyResetToken(token).then(
        () => isCurrent() && setState('valid'),
        (error: unknown) => {
          if (!isCurrent()) return;
          // Only a definite "no" from the server means the link is bad; otherwise offer a retry.
          const definite = hasErrorCode(error, 'RESET_TOKEN_INVALID') || hasErrorCode(error, 'NOT_FOUND');
          setState(definite ? 'invalid' : 'unreachable');
        },
      );
    },
    [token],
  );

  useEffect(() => {
    let current = true;
    verify(() => current);
    return () => {
      current = false;
    };
  }, [verify]);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    setFormErrorKey(null);
    const errors: Partial<Record<Field, string>> = {};
    const problem = passwordProblem(password);
    if (!password) errors.password = 'auth.required';
    else if (problem) errors.password = PASSWORD_PROBLEM_KEYS[problem];
    if (!confirmPassword) errors.confirmPassword = 'auth.required';
    else if (confirmPassword !== password) errors.confirmPassword = 'errors.PASSWORDS_DO_NOT_MATCH';
    setFieldErrors(errors);
    if (Object.keys(errors).length > 0) {
      focusFirstInvalid(form, FIELD_ORDER, errors);
      return;
    }
    setSubmitting(true);
    try {
      await authApi.resetPassword({ token, password, confirmPassword });
      setState('success');
    } catch (error) {
      if (hasErrorCode(error, 'RESET_TOKEN_INVALID')) setState('invalid');
      else if (hasErrorCode(error, 'PASSWORDS_DO_NOT_MATCH')) {
        setFieldErrors({ confirmPassword: 'errors.PASSWORDS_DO_NOT_MATCH' });
      } else if (hasErrorCode(error, 'VALIDATION') && error.field === 'password') {
        setFieldErrors({ password: 'auth.password.invalid' });
      } else if (hasErrorCode(error, 'RATE_LIMITED')) setFormErrorKey('errors.RATE_LIMITED');
      else setFormErrorKey('resetPassword.failed');
    } finally {
      setSubmitting(false);
    }
  }

  switch (state) {
    case 'verifying':
      return (
        <AuthLayout title={t('resetPassword.title')}>
          <div className="auth-card__center" role="status">
            <span className="spinner" aria-hidden="true" />
            <span>{t('resetPassword.verifying')}</span>
          </div>
        </AuthLayout>
      );
    case 'invalid':
      return (
        <AuthLayout
          title={t('resetPassword.invalidTitle')}
          subtitle={t('errors.RESET_TOKEN_INVALID')}
          icon={<AlertIcon />}
          iconTone="danger"
        >
          <div className="auth-card__actions">
            <Link to={PATHS.forgotPassword} className="button button--primary button--block">
              {t('resetPassword.requestNew')}
            </Link>
            <Link to={PATHS.login} className="button button--ghost button--block">
              {t('resetPassword.backToLogin')}
            </Link>
          </div>
        </AuthLayout>
      );
    case 'unreachable':
      return (
        <AuthLayout
          title={t('resetPassword.title')}
          subtitle={t('errors.generic.network')}
          icon={<AlertIcon />}
          iconTone="danger"
        >
          <Button block onClick={() => verify()}>
            {t('common.retry')}
          </Button>
        </AuthLayout>
      );
    case 'success':
      return (
        <AuthLayout
          title={t('resetPassword.successTitle')}
          subtitle={t('resetPassword.successText')}
          icon={<CheckIcon />}
        >
          <Link to={PATHS.login} className="button button--primary button--block">
            {t('resetPassword.toLogin')}
          </Link>
        </AuthLayout>
      );
    default:
      break;
  }

  const message = (field: Field) => {
    const key = fieldErrors[field];
    return key ? t(key, LIMIT_VALUES) : null;
  };

  return (
    <AuthLayout title={t('resetPassword.title')} subtitle={t('resetPassword.subtitle')}>
      <form className="auth-form" onSubmit={submit} noValidate>
        {formErrorKey && <FormAlert>{t(formErrorKey)}</FormAlert>}
        <PasswordField
          label={t('auth.fields.newPassword')}
          name="password"
          autoComplete="new-password"
          value={password}
          onChange={(event) => {
            setPassword(event.target.value);
            setFieldErrors(({ password: _, ...rest }) => rest);
          }}
          hint={t('auth.password.rules', LIMIT_VALUES)}
          error={message('password')}
          required
        />
        <PasswordField
          label={t('auth.fields.confirmPassword')}
          name="confirmPassword"
          autoComplete="new-password"
          value={confirmPassword}
          onChange={(event) => {
            setConfirmPassword(event.target.value);
            setFieldErrors(({ confirmPassword: _, ...rest }) => rest);
          }}
          error={message('confirmPassword')}
          required
        />
        <Button type="submit" block busy={submitting} className="auth-form__submit">
          {submitting ? t('resetPassword.submitting') : t('resetPassword.submit')}
        </Button>
      </form>
    </AuthLayout>
  );
}
