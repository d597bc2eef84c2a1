import type { LanguageCode } from '@voice/protocol';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { formatDate, formatLastSeen, languageNameIn } from '../../i18n/format.ts';
import type { LanguageInitResult } from '../../i18n/languageInit.ts';
import { useLanguage } from '../../i18n/useLanguage.ts';
import { PATHS } from '../../session/guards.tsx';
import { ThemeToggle } from '../../theme/ThemeToggle.tsx';
import { Logo } from '../../ui/Logo.tsx';
import { DetectionSources } from './DetectionSources.tsx';
import { LanguageSwitch } from './LanguageSwitch.tsx';
import './LanguageTestPage.css';

const INIT_KEYS: Record<LanguageInitResult['source'], string> = {
  profile: 'languageTest.startup.profile',
  storage: 'languageTest.startup.storage',
  detection: 'languageTest.startup.detection',
  default: 'languageTest.startup.default',
};

const FIVE_MINUTES = 5 * 60 * 1000;

/**
 * /language-test and /smart-language-test (SPEC section 2): what each detection source
 * offers, the language in use and a switch; the smart page also tells how start-up chose.
 */
export function LanguageTestPage({ smart = false }: { smart?: boolean }) {
  const { t } = useTranslation();
  const { language, languages, initialisation } = useLanguage();
  const [now] = useState(() => Date.now());
  const nameOf = (code: LanguageCode) =>
    languageNameIn(code, language) ?? languages.find((entry) => entry.code === code)?.name ?? code;
  const current = languages.find((entry) => entry.code === language);
  const title = smart ? t('languageTest.smartTitle') : t('languageTest.title');

  return (
    <div className="language-test">
      <title>{`${title} · ${t('app.name')}`}</title>
      <header className="language-test__topbar">
        <Link to={PATHS.root} className="language-test__home">
          <Logo />
        </Link>
        <ThemeToggle />
      </header>
      <main className="language-test__main">
        <div className="language-test__intro">
          <h1 className="language-test__title">{title}</h1>
          <p className="language-test__subtitle">
            {smart ? t('languageTest.smartIntro') : t('languageTest.intro')}
          </p>
        </div>

        <section className="language-test__card" aria-labelledby="language-test-current">
          <h2 className="language-test__heading" id="language-test-current">
            {t('languageTest.current')}
          </h2>
          <div className="language-test__current" data-testid="current-language">
            <span className="language-test__flag" aria-hidden="true">
              {current?.flag}
            </span>
            <span className="language-test__current-name" lang={language}>
              {current?.nativeName}
            </span>
            <code className="language-test__code">{language}</code>
          </div>
          <dl className="language-test__samples">
            <div>
              <dt>{t('languageTest.sampleText')}</dt>
              <dd>{t('app.tagline')}</dd>
            </div>
            <div>
              <dt>{t('languageTest.sampleDate')}</dt>
              <dd>{formatDate(now, language, { dateStyle: 'full' })}</dd>
            </div>
            <div>
              <dt>{t('languageTest.sampleLastSeen')}</dt>
              <dd>{formatLastSeen(now - FIVE_MINUTES, language, now)}</dd>
            </div>
          </dl>
        </section>

        <LanguageSwitch nameOf={nameOf} />

        {smart && initialisation && (
          <section className="language-test__card" aria-labelledby="language-test-startup">
            <h2 className="language-test__heading" id="language-test-startup">
              {t('languageTest.startup.title')}
            </h2>
            <p data-testid="startup-source">
              {t(INIT_KEYS[initialisation.source], { language: nameOf(initialisation.language) })}
            </p>
            {initialisation.profileFailed && (
              <p className="language-test__muted">{t('languageTest.startup.profileFailed')}</p>
            )}
            {initialisation.savedToProfile && (
              <p className="language-test__muted">{t('languageTest.startup.saved')}</p>
            )}
          </section>
        )}

        <DetectionSources nameOf={nameOf} smart={smart} />
      </main>
    </div>
  );
}
