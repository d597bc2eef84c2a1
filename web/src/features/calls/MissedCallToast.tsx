/**
 * "Missed call from Bob", until the person calls back, dismisses it or looks at the call
 * history (the Calls tab's badge counts them meanwhile).
 */
import { useTranslation } from 'react-i18next';
import { nameOf } from '../../lib/people.ts';
import { Avatar } from '../../ui/Avatar.tsx';
import { Button } from '../../ui/Button.tsx';
import { CloseIcon } from '../../ui/icons.tsx';
import { useCall } from './useCall.ts';
import '../../ui/Toast.css';

export function MissedCallToast() {
  const { t } = useTranslation();
  const call = useCall();
  const latest = call.missed.at(-1);
  const busy = call.state.incoming !== null || call.state.active !== null || call.state.placing !== null;
  return (
    <div className="toast-region toast-region--top" role="status">
      {latest && !busy && (
        <div className="toast" key={latest.callId}>
          <Avatar name={nameOf(latest.caller)} url={latest.caller.avatar_url} size={36} />
          <p className="toast__text">
            {call.missed.length > 1
              ? t('call.missed.many', { count: call.missed.length, name: nameOf(latest.caller) })
              : t('call.missed.from', { name: nameOf(latest.caller) })}
          </p>
          <div className="toast__actions">
            <Button
              variant="secondary"
              onClick={() => {
                call.seeMissed();
                call.startCall(latest.caller);
              }}
            >
              {t('call.missed.callBack')}
            </Button>
            <button
              type="button"
              className="toast__close"
              onClick={call.seeMissed}
              aria-label={t('call.dismiss')}
            >
              <CloseIcon width="18" height="18" />
            </button>
          </div>
        </div>
      )}
    </div>
  );
}
