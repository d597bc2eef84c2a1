import { useTranslation } from 'react-i18next';
import { AlertIcon, CheckIcon } from '../../ui/icons.tsx';
import { LIMIT_VALUES, USERNAME_REASON_KEYS } from './fieldMessages.ts';
import type { UsernameAvailability } from './useUsernameAvailability.ts';

/** The live availability line under the username field. */
export function UsernameStatus({ availability }: { availability: UsernameAvailability }) {
  const { t } = useTranslation();
  switch (availability.state) {
    case 'checking':
      return (
        <span className="field-status" data-state="checking">
          <span className="spinner spinner--small" aria-hidden="true" />
          {t('auth.username.checking')}
        </span>
      );
    case 'available':
      return (
        <span className="field-status field-status--ok" data-state="available">
          <CheckIcon />
          {t('auth.username.available')}
        </span>
      );
    case 'unavailable':
      return (
        <span
          className="field-status field-status--bad"
          data-state={availability.reason === 'taken' ? 'taken' : 'invalid'}
        >
          <AlertIcon />
          {t(USERNAME_REASON_KEYS[availability.reason], LIMIT_VALUES)}
        </span>
      );
    default:
      return null;
  }
}
