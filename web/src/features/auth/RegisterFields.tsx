import { LIMITS } from '@voice/protocol';
import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { PATHS } from '../../session/guards.tsx';
import { Checkbox } from '../../ui/Checkbox.tsx';
import { TextField } from '../../ui/TextField.tsx';
import { LIMIT_VALUES, USERNAME_REASON_KEYS } from './fieldMessages.ts';
import { NewPasswordFields } from './NewPasswordFields.tsx';
import type { Field, FieldErrors, RegisterValues } from './registerForm.ts';
import { UsernameStatus } from './UsernameStatus.tsx';
import type { UsernameAvailability } from './useUsernameAvailability.ts';

interface Props {
  values: RegisterValues;
  /** Called with each edit; the caller clears that field's error. */
  onChange<F extends Field>(field: F, value: RegisterValues[F]): void;
  errors: FieldErrors;
  availability: UsernameAvailability;
}

/** The sign-up form's fields, with their hints, the live username check and their errors. */
export function RegisterFields({ values, onChange, errors, availability }: Props) {
  const { t } = useTranslation();
  const message = (field: Field) => {
    const key = errors[field];
    return key ? t(key, LIMIT_VALUES) : null;
  };
  // The availability line already explains an unavailable name; do not repeat it below.
  const usernameShownByStatus =
    availability.state === 'unavailable' && errors.username === USERNAME_REASON_KEYS[availability.reason];

  return (
    <>
      <TextField
        label={t('auth.fields.username')}
        name="username"
        autoComplete="username"
        autoFocus
        autoCapitalize="none"
        spellCheck={false}
        maxLength={LIMITS.usernameMax}
        value={values.username}
        onChange={(event) => onChange('username', event.target.value)}
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
        value={values.email}
        onChange={(event) => onChange('email', event.target.value)}
        error={message('email')}
        required
      />
      <NewPasswordFields
        label={t('auth.fields.password')}
        password={values.password}
        confirmPassword={values.confirmPassword}
        onPasswordChange={(value) => onChange('password', value)}
        onConfirmChange={(value) => onChange('confirmPassword', value)}
        errors={{ password: message('password'), confirmPassword: message('confirmPassword') }}
      />
      <TextField
        label={t('auth.fields.displayName')}
        labelNote={t('auth.optional')}
        name="displayName"
        autoComplete="nickname"
        maxLength={LIMITS.displayNameMax}
        value={values.displayName}
        onChange={(event) => onChange('displayName', event.target.value)}
        hint={t('auth.displayName.hint')}
        error={message('displayName')}
      />
      <Checkbox
        name="acceptTerms"
        checked={values.acceptTerms}
        onChange={(event) => onChange('acceptTerms', event.target.checked)}
        error={message('acceptTerms')}
      >
        {/* In a new tab, so a half-filled form is not lost. */}
        <Trans
          i18nKey="register.acceptTerms"
          components={{
            terms: <Link to={PATHS.terms} target="_blank" rel="noopener" />,
            privacy: <Link to={PATHS.privacy} target="_blank" rel="noopener" />,
          }}
        />
      </Checkbox>
    </>
  );
}
