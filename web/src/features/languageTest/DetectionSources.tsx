import type { LanguageCode } from '@voice/protocol';
import { useTranslation } from 'react-i18next';
import { browserDetectionSources, liveDetectionEnvironment } from '../../i18n/browserEnvironment.ts';
import { type DetectionSource, detectLanguage } from '../../i18n/detectLanguage.ts';
import { useLanguage } from '../../i18n/useLanguage.ts';
import { Button } from '../../ui/Button.tsx';

const SOURCE_KEYS: Record<DetectionSource, string> = {
  querystring: 'languageTest.sources.querystring',
  cookie: 'languageTest.sources.cookie',
  localStorage: 'languageTest.sources.localStorage',
  sessionStorage: 'languageTest.sources.sessionStorage',
  navigator: 'languageTest.sources.navigator',
  htmlTag: 'languageTest.sources.htmlTag',
};

interface Props {
  nameOf(code: LanguageCode): string;
  /** Also tell what a start-up without a saved choice would pick, and offer to switch to it. */
  smart: boolean;
}

/** What each detection source offers, in detection order, and which language detection picks. */
export function DetectionSources({ nameOf, smart }: Props) {
  const { t } = useTranslation();
  const { language, changeLanguage, isChanging } = useLanguage();
  // Read on each render: switching the language rewrites local storage and <html lang>.
  const detection = detectLanguage(liveDetectionEnvironment());
  // What a start-up with no saved choice would pick: the stored language otherwise always wins,
  // and <html lang> is then still the served one.
  const automatic = detectLanguage({ ...browserDetectionSources(), localStorage: null });

  return (
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
  );
}
