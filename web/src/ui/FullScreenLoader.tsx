import { useTranslation } from 'react-i18next';
import './FullScreenLoader.css';

/** Covers the screen while the session is restored or a screen loads. */
export function FullScreenLoader() {
  const { t } = useTranslation();
  return (
    <div className="fullscreen-loader" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      <span className="fullscreen-loader__text">{t('common.loading')}</span>
    </div>
  );
}
