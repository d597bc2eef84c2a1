import { useTranslation } from 'react-i18next';
import { GlobeIcon } from '../ui/icons.tsx';
import { useLanguage } from './useLanguage.ts';
import './LanguageSelect.css';

/** A compact picker of the interface language. */
export function LanguageSelect() {
  const { t } = useTranslation();
  const { language, languages, changeLanguage, isChanging } = useLanguage();
  return (
    <label className="language-select">
      <span className="visually-hidden">{t('language.label')}</span>
      <GlobeIcon />
      <select
        className="select-chevron language-select__input"
        value={language}
        aria-busy={isChanging || undefined}
        onChange={(event) => void changeLanguage(event.target.value)}
      >
        {languages.map((entry) => (
          <option key={entry.code} value={entry.code} lang={entry.code}>
            {entry.nativeName}
          </option>
        ))}
      </select>
    </label>
  );
}
