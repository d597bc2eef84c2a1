import type { LanguageCode } from '@voice/protocol';
import { useTranslation } from 'react-i18next';
import { useLanguage } from '../../i18n/useLanguage.ts';
import { CheckIcon } from '../../ui/icons.tsx';

/** Every language as a toggle button: its own name, its name in the current language. */
export function LanguageSwitch({ nameOf }: { nameOf(code: LanguageCode): string }) {
  const { t } = useTranslation();
  const { language, languages, changeLanguage, isChanging } = useLanguage();
  return (
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
  );
}
