import { useTranslation } from 'react-i18next';
import { useAppSocket, useSocketStatus } from './useAppSocket.ts';
import './ConnectionBanner.css';

/**
 * Says so while live updates are paused: the app socket is reconnecting, or the server
 * closed it because the person has the app open in too many places (then it waits for
 * them to ask, since reconnecting would close another of their tabs).
 */
export function ConnectionBanner() {
  const { t } = useTranslation();
  const socket = useAppSocket();
  const status = useSocketStatus();
  const tooMany = status === 'closed' && socket?.closedBecause === 'too-many-sockets';
  return (
    <div className="connection-banner-region" role="status">
      {status === 'reconnecting' && (
        <div className="connection-banner">
          <span className="spinner spinner--small" aria-hidden="true" />
          {t('socket.reconnecting')}
        </div>
      )}
      {tooMany && (
        <div className="connection-banner connection-banner--action">
          <span className="connection-banner__text">{t('socket.tooManyTabs')}</span>
          <button type="button" className="button button--secondary" onClick={() => socket?.reconnect()}>
            {t('socket.reconnectHere')}
          </button>
        </div>
      )}
    </div>
  );
}
