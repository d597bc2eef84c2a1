import { isValidEmail, LIMITS, passwordProblem, usernameProblem } from '@voice/protocol';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router-dom';
import { authApi } from '../../api/auth.ts';
import { ApiError } from '../../api/client.ts';
import { errorMessageKey, hasErrorCode } from '../../api/errorMessage.ts';
import { currentLanguage } from '../../i18n/i18n.ts';
import { PATHS } from '../../session/guards.tsx';
import { useSession } from '../../session/useSession.ts';
import { Button } from '../../ui/Button.tsx';
import { Checkbox } from '../../ui/Checkbox.tsx';
import { FormAlert } from '../../ui/FormAlert.tsx';
import { PasswordField } from '../../ui/PasswordField.tsx';
import { TextField } from '../../ui/TextField.tsx';
import { AuthLayout } from './AuthLayout.tsx';
import {
  INVALID_FIELD_KEYS,
  LIMIT_VALUES,
  PASSWORD_PROBLEM_KEYS,
  USERNAME_REASON_KEYS,
} from './fieldMessages.ts';
import { focusFirstInvalid } from './focusFirstInvalid.ts';
import { UsernameStatus } from './UsernameStatus.tsx';
import { useUsernameAvailability } from './useUsernameAvailability.ts';

const FIELD_ORDER = [
  'username',
  'email',
  'password',
  'confirmPassword',
  'displayName',
  'acceptTerms',
] as const;
type Field = (typeof FIELD_ORDER)[number];
type FieldErrors = Partial<Record<Field, string>>;

const SERVER_CODE_FIELDS: Record<string, Field> = {
  USERNAME_TAKEN: 'username',
  EMAIL_TAKEN: 'email',
  PASSWORDS_DO_NOT_MATCH: 'confirmPassword',
  TERMS_NOT_ACCEPTED: 'acceptTerms',
};

function isField(name: string | null): name is Field {
  return name !== null && (FIELD_ORDER as readonly string[]).includes(name);
}

/** The form field a server error belongs to, if any. */
function fieldOfError(error: unknown): Field | null {
  if (!(error instanceof ApiError)) return null;
  const byCode = SERVER_CODE_FIELDS[error.code ?? ''];
  if (byCode) return byCode;
  return error.code === 'VALIDATION' && isField(error.field) ? error.field : null;
}

export function RegisterPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { signIn } = useSession();
  const [username, setUsername] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirmPassword, setConfirmPassword] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [acceptTerms, setAcceptTerms] = useState(false);
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const [formErrorKey, setFormErrorKey] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const availability = useUsernameAvailability(username);

  const clearError = (field: Field) => setFieldErrors(({ [field]: _, ...rest }) => rest);

  function validate(): FieldErrors {
    const errors: FieldErrors = {};
    const usernameIssue = usernameProblem(username);
    if (!username) errors.username = 'auth.required';
    else if (usernameIssue) errors.username = USERNAME_REASON_KEYS[usernameIssue];
    else if (availability.state === 'unavailable')
      errors.username = USERNAME_REASON_KEYS[availability.reason];
    if (!email.trim()) errors.email = 'auth.required';
    else if (!isValidEmail(email.trim())) errors.email = 'auth.email.invalid';
    const passwordIssue = passwordProblem(password);
    if (!password) errors.password = 'auth.required';
    else if (passwordIssue) errors.password = PASSWORD_PROBLEM_KEYS[passwordIssue];
    if (!confirmPassword) errors.confirmPassword = 'auth.required';
    else if (confirmPassword !== password) errors.confirmPassword = 'errors.PASSWORDS_DO_NOT_MATCH';
    const name = displayName.trim();
    if (name && (name.length < LIMITS.displayNameMin || name.length > LIMITS.displayNameMax)) {
      errors.displayName = 'auth.displayName.rules';
    }
    if (!acceptTerms) errors.acceptTerms = 'errors.TERMS_NOT_ACCEPTED';
    return errors;
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    setFormErrorKey(null);
    const errors = validate();
    setFieldErrors(errors);
    if (Object.keys(errors).length > 0) {
      focusFirstInvalid(form, FIELD_ORDER, errors);
      return;
    }
    setSubmitting(true);
    try {
      const auth = await authApi.register({
        username,
        email: email.trim(),
        password,
        displayName: displayName.trim() || undefined,
        acceptTerms,
        language: currentLanguage(),
      });
      signIn(auth);
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
        setFormErrorKey(errorMessageKey(error));
      }
    }
  }

  const message = (field: Field) => {
    const key = fieldErrors[field];
    return key ? t(key, LIMIT_VALUES) : null;
  };
  // The availability line already explains an unavailable name; do not repeat it below.
  const usernameShownByStatus =
    availability.state === 'unavailable' &&
    fieldErrors.username === USERNAME_REASON_KEYS[availability.reason];

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
        {formErrorKey && <FormAlert>{t(formErrorKey)}</FormAlert>}
        <TextField
          label={t('auth.fields.username')}
          name="username"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          maxLength={LIMITS.usernameMax}
          value={username}
          onChange={(event) => {
            setUsername(event.target.value);
            clearError('username');
          }}
          hint={t('auth.username.rules', LIMIT_VALUES)}
          status={<UsernameStatus availability={availability} />}
          error={usernameShownByStatus ? null : message('username')}
          invalid={availability.state === 'unavailable'}
          required
        />
        <TextField
          label={t('auth.fields.email')}
          name="email"
          type="email"
          autoComplete="email"
          autoCapitalize="none"
          spellCheck={false}
          value={email}
          onChange={(event) => {
            setEmail(event.target.value);
            clearError('email');
          }}
          error={message('email')}
          required
        />
        <PasswordField
          label={t('auth.fields.password')}
          name="password"
          autoComplete="new-password"
          value={password}
          onChange={(event) => {
            setPassword(event.target.value);
            clearError('password');
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
            clearError('confirmPassword');
          }}
          error={message('confirmPassword')}
          required
        />
        <TextField
          label={t('auth.fields.displayName')}
          labelNote={t('auth.optional')}
          name="displayName"
          autoComplete="nickname"
          maxLength={LIMITS.displayNameMax}
          value={displayName}
          onChange={(event) => {
            setDisplayName(event.target.value);
            clearError('displayName');
          }}
          hint={t('auth.displayName.hint')}
          error={message('displayName')}
        />
        <Checkbox
          name="acceptTerms"
          checked={acceptTerms}
          onChange={(event) => {
            setAcceptTerms(event.target.checked);
            clearError('acceptTerms');
          }}
          error={message('acceptTerms')}
        >
          {t('register.acceptTerms')}
        </Checkbox>
        <Button type="submit" block busy={submitting} className="auth-form__submit">
          {submitting ? t('register.submitting') : t('register.submit')}
        </Button>
      </form>
    </AuthLayout>
  );
}
