import { useTranslation } from 'react-i18next';
import { useSocketStatus } from './useAppSocket.ts';
import './ConnectionBanner.css';

/** Says so while live updates are paused because the app socket is reconnecting. */
export function ConnectionBanner() {
  const { t } = useTranslation();
  const status = useSocketStatus();
  return (
    <div className="connection-banner-region" role="status">
      {status === 'reconnecting' && (
        <div className="connection-banner">
          <span className="spinner spinner--small" aria-hidden="true" />
          {t('socket.reconnecting')}
        </div>
      )}
    </div>
  );
}
