import type { LanguageCode } from '@voice/protocol';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import { browserDetectionEnvironment } from '../../i18n/browserEnvironment.ts';
import { type DetectionSource, detectLanguage } from '../../i18n/detectLanguage.ts';
import { formatDate, formatLastSeen, languageNameIn } from '../../i18n/format.ts';
import type { LanguageInitResult } from '../../i18n/languageInit.ts';
import { useLanguage } from '../../i18n/useLanguage.ts';
import { PATHS } from '../../session/guards.tsx';
import { ThemeToggle } from '../../theme/ThemeToggle.tsx';
import { Button } from '../../ui/Button.tsx';
import { CheckIcon } from '../../ui/icons.tsx';
import { Logo } from '../../ui/Logo.tsx';
import './LanguageTestPage.css';

const SOURCE_KEYS: Record<DetectionSource, string> = {
  querystring: 'languageTest.sources.querystring',
  cookie: 'languageTest.sources.cookie',
  localStorage: 'languageTest.sources.localStorage',
  sessionStorage: 'languageTest.sources.sessionStorage',
  navigator: 'languageTest.sources.navigator',
  htmlTag: 'languageTest.sources.htmlTag',
};

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
  const { language, languages, changeLanguage, isChanging, initialisation } = useLanguage();
  // Read on each render: switching the language rewrites local storage.
  const environment = browserDetectionEnvironment();
  const detection = detectLanguage(environment);
  // What detection picks with no saved choice: the stored language otherwise always wins.
  const automatic = detectLanguage({ ...environment, localStorage: null });
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

        <section className="language-test__card" aria-labelledby="language-test-switch">
          <h2 className="language-test__heading" id="language-test-switch">
            {t('languageTest.switch')}
          </h2>
          <div className="language-test__languages" aria-busy={isChanging || undefined}>
            {languages.map((entry) => (
              <button
                key={entry.code}
                type="button"
                className="language-test__language"
                aria-pressed={entry.code === language}
                disabled={isChanging}
                onClick={() => void changeLanguage(entry.code)}
              >
                <span className="language-test__flag" aria-hidden="true">
                  {entry.flag}
                </span>
                <span className="language-test__language-text">
                  <span lang={entry.code}>{entry.nativeName}</span>
                  <span className="language-test__muted">{nameOf(entry.code)}</span>
                </span>
                {entry.code === language && <CheckIcon />}
              </button>
            ))}
          </div>
        </section>

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

        <section className="language-test__card" aria-labelledby="language-test-sources">
          <h2 className="language-test__heading" id="language-test-sources">
            {t('languageTest.sources.title')}
          </h2>
          <div className="language-test__sources-head" aria-hidden="true">
            <span>{t('languageTest.sources.source')}</span>
            <span>{t('languageTest.sources.value')}</span>
            <span>{t('languageTest.sources.result')}</span>
          </div>
          <ol className="language-test__sources">
            {detection.readings.map((reading) => (
              <li
                key={reading.source}
                data-source={reading.source}
                className={`language-test__source${reading.source === detection.source ? ' language-test__source--chosen' : ''}`}
              >
                <span className="language-test__source-name">{t(SOURCE_KEYS[reading.source])}</span>
                <span className="language-test__source-value">
                  {reading.values.length > 0 ? (
                    <code>{reading.values.join(', ')}</code>
                  ) : (
                    <span className="language-test__muted">{t('languageTest.sources.empty')}</span>
                  )}
                </span>
                <span className="language-test__source-result">
                  {reading.language ? (
                    nameOf(reading.language)
                  ) : (
                    <span className="language-test__muted">
                      {reading.values.length > 0 ? t('languageTest.sources.unsupported') : '—'}
                    </span>
                  )}
                </span>
              </li>
            ))}
          </ol>
          <p className="language-test__result" data-testid="detected-language">
            {detection.source === 'fallback'
              ? t('languageTest.sources.fallback', { language: nameOf(detection.language) })
              : t('languageTest.sources.detected', {
                  language: nameOf(detection.language),
                  source: t(SOURCE_KEYS[detection.source]),
                })}
          </p>
          {smart && (
            <div className="language-test__automatic">
              <p data-testid="automatic-language">
                {t('languageTest.automatic', { language: nameOf(automatic.language) })}
              </p>
              {automatic.language !== language && (
                <Button
                  variant="secondary"
                  busy={isChanging}
                  onClick={() => void changeLanguage(automatic.language)}
                >
                  {t('languageTest.useDetected', { language: nameOf(automatic.language) })}
                </Button>
              )}
            </div>
          )}
        </section>
      </main>
    </div>
  );
}
