import { useTranslation } from 'react-i18next';
import { IconButton } from '../ui/IconButton.tsx';
import { MoonIcon, SunIcon } from '../ui/icons.tsx';
import { useThemeChoice } from './useThemeChoice.ts';

/** Switches between the dark and the light theme (saved to the profile when signed in). */
export function ThemeToggle() {
  const { t } = useTranslation();
  const { theme, toggleTheme } = useThemeChoice();
  const label = theme === 'dark' ? t('theme.switchToLight') : t('theme.switchToDark');
  return (
    <IconButton label={label} onClick={toggleTheme}>
      {theme === 'dark' ? <SunIcon /> : <MoonIcon />}
    </IconButton>
  );
}
