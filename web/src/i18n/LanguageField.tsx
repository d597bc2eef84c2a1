import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { languageNameIn } from './format.ts';
import { useLanguage } from './useLanguage.ts';
import './LanguageField.css';

/** A labelled language picker for forms; the change applies at once (and is saved to the profile). */
export function LanguageField() {
  const { t } = useTranslation();
  const { language, languages, changeLanguage, isChanging } = useLanguage();
  const id = useId();
  return (
    <div className="field">
      <label className="field__label" htmlFor={id}>
        {t('language.interface')}
      </label>
      <div className="field__control">
        <select
          id={id}
          className="field__input select-chevron language-field__select"
          value={language}
          aria-busy={isChanging || undefined}
          aria-describedby={`${id}-hint`}
          onChange={(event) => void changeLanguage(event.target.value)}
        >
          {languages.map((entry) => (
            <option key={entry.code} value={entry.code} lang={entry.code}>
              {entry.code === language
                ? entry.nativeName
                : `${entry.nativeName} (${languageNameIn(entry.code, language) ?? entry.name})`}
            </option>
          ))}
        </select>
        {isChanging && <span className="spinner spinner--small language-field__spinner" aria-hidden="true" />}
      </div>
      <p className="field__hint" id={`${id}-hint`}>
        {t('language.appliesNow')}
      </p>
    </div>
  );
}
