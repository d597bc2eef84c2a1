import { useTranslation } from 'react-i18next';
import './Logo.css';

/** The brand mark and name. */
export function Logo({ size = 'medium' }: { size?: 'medium' | 'large' }) {
  const { t } = useTranslation();
  return (
    <span className={`logo logo--${size}`}>
      <svg className="logo__mark" viewBox="0 0 32 32" aria-hidden="true" focusable="false">
        <rect width="32" height="32" rx="9" className="logo__tile" />
        <g className="logo__bars">
          <rect x="7" y="13" width="3" height="6" rx="1.5" />
          <rect x="12" y="9" width="3" height="14" rx="1.5" />
          <rect x="17" y="6" width="3" height="20" rx="1.5" />
          <rect x="22" y="11" width="3" height="10" rx="1.5" />
        </g>
      </svg>
      <span className="logo__name">{t('app.name')}</span>
    </span>
  );
}
