import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import { authApi } from '../../api/auth.ts';
import { type ErrorMessage, errorMessage, hasErrorCode } from '../../api/errorMessage.ts';
import { PATHS } from '../../session/guards.tsx';
import { AuthLayout } from '../../ui/AuthLayout.tsx';
import { Button } from '../../ui/Button.tsx';
import { AlertIcon, CheckIcon } from '../../ui/icons.tsx';
import { NewPasswordForm } from './NewPasswordForm.tsx';

/** SPEC section 4 "Password reset": verifying, then valid or invalid, then success. */
type LinkState = 'verifying' | 'valid' | 'invalid' | 'success' | 'unreachable';

/** /reset-password (SPEC section 2): checks the link, then takes the new password. */
export function ResetPasswordPage() {
  const { t, i18n } = useTranslation();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [state, setState] = useState<LinkState>(token ? 'verifying' : 'invalid');
  // Why the link could not be checked: the server was not reached, or asked to wait.
  const [verifyError, setVerifyError] = useState<ErrorMessage | null>(null);

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
          if (!definite) setVerifyError(errorMessage(error, i18n.language));
          setState(definite ? 'invalid' : 'unreachable');
        },
      );
    },
    [token, i18n],
  );

  useEffect(() => {
    let current = true;
    verify(() => current);
    return () => {
      current = false;
    };
  }, [verify]);

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
          subtitle={t(verifyError?.key ?? 'errors.generic.network', verifyError?.values)}
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

  return (
    <AuthLayout title={t('resetPassword.title')} subtitle={t('resetPassword.subtitle')}>
      <NewPasswordForm token={token} onDone={setState} />
    </AuthLayout>
  );
}
