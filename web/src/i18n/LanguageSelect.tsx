import { LANGUAGES } from '@voice/protocol';
import { useTranslation } from 'react-i18next';
import { GlobeIcon } from '../ui/icons.tsx';
import { changeLanguage, currentLanguage } from './i18n.ts';
import './LanguageSelect.css';

/** A compact picker of the interface language. */
export function LanguageSelect() {
  // useTranslation re-renders this on every language change, keeping the value in step.
  const { t } = useTranslation();
  const value = currentLanguage();
  return (
    <label className="language-select">
      <span className="visually-hidden">{t('language.label')}</span>
      <GlobeIcon />
      <select
        className="language-select__input"
        value={value}
        onChange={(event) => void changeLanguage(event.target.value)}
      >
        {LANGUAGES.map((language) => (
          <option key={language.code} value={language.code} lang={language.code}>
            {language.nativeName}
          </option>
        ))}
      </select>
    </label>
  );
}
