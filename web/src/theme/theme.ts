/**
 * Dark (default) or light theme, written as data-theme on <html> and kept in localStorage;
 * a signed-in user's profile also keeps it (see applyProfileTheme and useThemeChoice). Free
 * of React: the start-up script applies the stored theme before the app's code has arrived.
 */
import { DEFAULT_THEME, isTheme, STORAGE_KEYS, type Theme } from '@voice/protocol';

function readStoredTheme(): Theme {
  try {
    const stored = localStorage.getItem(STORAGE_KEYS.theme);
    return isTheme(stored) ? stored : DEFAULT_THEME;
  } catch {
    return DEFAULT_THEME;
  }
}

let current: Theme = DEFAULT_THEME;
const listeners = new Set<() => void>();

function apply(theme: Theme): void {
  current = theme;
  document.documentElement.dataset.theme = theme;
  document.documentElement.style.colorScheme = theme;
}

/** Applies the stored theme; call once before the first render. */
export function initTheme(): void {
  apply(readStoredTheme());
}

export function setTheme(theme: Theme): void {
  apply(theme);
  try {
    localStorage.setItem(STORAGE_KEYS.theme, theme);
  } catch {
    // The theme then lasts for this page only.
  }
  for (const listener of listeners) listener();
}

/** The active theme, outside React. */
export function currentTheme(): Theme {
  return current;
}

/** Applies a theme read from the profile at sign-in or session restore; anything invalid is ignored. */
export function applyProfileTheme(theme: unknown): void {
  if (isTheme(theme)) setTheme(theme);
}

/** Calls `listener` after every theme change; returns the unsubscribe function. */
export function subscribeTheme(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
