/**
 * Changing the theme: applied and stored on this device at once and, when signed in, saved
 * to the profile like the language, so the next sign-in elsewhere brings it along. A failed
 * save is ignored (logged only): the theme still holds on this device.
 */
import type { Theme } from '@voice/protocol';
import { useCallback, useSyncExternalStore } from 'react';
import { profileApi } from '../api/profile.ts';
import { useSession } from '../session/useSession.ts';
import { currentTheme, setTheme, subscribeTheme } from './theme.ts';

// Saves run one after another, so of two quick changes the last one is what the profile keeps.
let saving: Promise<unknown> = Promise.resolve();

export interface ThemeChoice {
  theme: Theme;
  changeTheme(theme: Theme): void;
  toggleTheme(): void;
}

export function useThemeChoice(): ThemeChoice {
  const theme = useSyncExternalStore(subscribeTheme, currentTheme, currentTheme);
  const { status, updateUser } = useSession();
  const signedIn = status === 'authenticated';

  const changeTheme = useCallback(
    (next: Theme) => {
      setTheme(next);
      if (!signedIn) return;
      saving = saving
        .then(() => profileApi.update({ theme: next }))
        .then(
          ({ user }) => updateUser(user),
          (error: unknown) => console.debug('Theme could not be saved to the profile', error),
        );
    },
    [signedIn, updateUser],
  );

  const toggleTheme = useCallback(
    () => changeTheme(currentTheme() === 'dark' ? 'light' : 'dark'),
    [changeTheme],
  );

  return { theme, changeTheme, toggleTheme };
}
