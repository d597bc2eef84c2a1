import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { LanguageSelect } from '../i18n/LanguageSelect.tsx';
import { ThemeToggle } from '../theme/ThemeToggle.tsx';
import { Logo } from './Logo.tsx';
import './AuthLayout.css';

interface Props {
  /** Page heading, also the document title. */
  title: string;
  subtitle?: ReactNode;
  /** Icon above the heading, for confirmation and status screens. */
  icon?: ReactNode;
  iconTone?: 'success' | 'danger';
  /** Links under the card, e.g. "Already have an account?". */
  footer?: ReactNode;
  children: ReactNode;
}

/** The shared frame of the visitor pages: brand, a centred card, language and theme controls. */
export function AuthLayout({ title, subtitle, icon, iconTone = 'success', footer, children }: Props) {
  const { t } = useTranslation();
  return (
    <div className="auth">
      <title>{`${title} · ${t('app.name')}`}</title>
      <header className="auth__topbar">
        <span className="auth__topbar-logo">
          <Logo />
        </span>
        <div className="auth__controls">
          <LanguageSelect />
          <ThemeToggle />
        </div>
      </header>
      <main className="auth__main">
        <div className="auth__brand">
          <Logo size="large" />
          <p className="auth__tagline">{t('app.tagline')}</p>
        </div>
        <section className="auth-card" aria-labelledby="auth-card-title">
          {icon && <div className={`auth-card__icon auth-card__icon--${iconTone}`}>{icon}</div>}
          <h1 className="auth-card__title" id="auth-card-title">
            {title}
          </h1>
          {subtitle && <p className="auth-card__subtitle">{subtitle}</p>}
          <div className="auth-card__body">{children}</div>
        </section>
        {footer && <div className="auth__footer">{footer}</div>}
      </main>
    </div>
  );
}
