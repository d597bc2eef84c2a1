import { THEMES, type Theme } from '@voice/protocol';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { MoonIcon, SunIcon } from '../ui/icons.tsx';
import { useThemeChoice } from './useThemeChoice.ts';
import './ThemeChoice.css';

const THEME_LABELS: Record<Theme, string> = { dark: 'theme.dark', light: 'theme.light' };

/** Dark or light, set directly (SPEC section 4, "Theme"); saved to the profile when signed in. */
export function ThemeChoice() {
  const { t } = useTranslation();
  const { theme, changeTheme } = useThemeChoice();
  const name = useId();
  return (
    <fieldset className="theme-choice">
      <legend className="theme-choice__legend">{t('theme.label')}</legend>
      <div className="theme-choice__options">
        {THEMES.map((value) => (
          <label key={value} className="theme-choice__option">
            <input
              type="radio"
              className="visually-hidden"
              name={name}
              value={value}
              checked={theme === value}
              onChange={() => changeTheme(value)}
            />
            {value === 'dark' ? <MoonIcon /> : <SunIcon />}
            <span>{t(THEME_LABELS[value])}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}
