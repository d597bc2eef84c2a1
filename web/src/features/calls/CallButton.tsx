import type { UserSummary } from '@voice/protocol';
import { useTranslation } from 'react-i18next';
import { nameOf } from '../../lib/people.ts';
import { IconButton } from '../../ui/IconButton.tsx';
import { PhoneIcon } from '../../ui/icons.tsx';
import { hasCall } from './callState.ts';
import { useCall } from './useCall.ts';
import './CallButton.css';

/**
 * "Call {{name}}" in a person's row (friends list, call history). Offered to offline people
 * too: the server answers "User is unavailable". Disabled while this tab has a call.
 */
export function CallButton({ user }: { user: UserSummary }) {
  const { t } = useTranslation();
  const call = useCall();
  return (
    <IconButton
      className="call-button"
      label={t('callHistory.call', { name: nameOf(user) })}
      onClick={() => call.startCall(user)}
      disabled={hasCall(call.state)}
    >
      <PhoneIcon />
    </IconButton>
  );
}
