import { useTranslation } from 'react-i18next';
import { IconButton } from '../ui/IconButton.tsx';
import { MoonIcon, SunIcon } from '../ui/icons.tsx';
import { toggleTheme, useTheme } from './theme.ts';

/** Switches between the dark and the light theme. */
export function ThemeToggle() {
  const { t } = useTranslation();
  const theme = useTheme();
  const label = theme === 'dark' ? t('theme.switchToLight') : t('theme.switchToDark');
  return (
    <IconButton label={label} onClick={toggleTheme}>
      {theme === 'dark' ? <SunIcon /> : <MoonIcon />}
    </IconButton>
  );
}
