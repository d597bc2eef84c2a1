/** What language initialisation reads from this browser (see detectLanguage.ts, languageInit.ts). */
import { STORAGE_KEYS } from '@voice/protocol';
import type { DetectionEnvironment } from './detectLanguage.ts';
import type { LanguageStorage } from './languageInit.ts';

// Read once, as the page was served: the app rewrites <html lang> on every language change.
const servedHtmlLang = document.documentElement.getAttribute('lang');

/** localStorage, looked up on each call: merely touching it can throw in some privacy modes. */
export const browserLanguageStorage: LanguageStorage = {
  getItem: (key) => window.localStorage.getItem(key),
  setItem: (key, value) => window.localStorage.setItem(key, value),
};

function readSession(): string | null {
  try {
    return window.sessionStorage.getItem(STORAGE_KEYS.language);
  } catch {
    return null;
  }
}

/** Every detection source except local storage, which initialisation reads itself. */
export function browserDetectionSources(): Omit<DetectionEnvironment, 'localStorage'> {
  return {
    query: window.location.search,
    cookie: document.cookie,
    sessionStorage: readSession(),
    navigatorLanguages: navigator.languages?.length ? navigator.languages : [navigator.language],
    htmlLang: servedHtmlLang,
  };
}

function readStored(): string | null {
  try {
    return browserLanguageStorage.getItem(STORAGE_KEYS.language);
  } catch {
    // Unreadable storage holds no choice.
    return null;
  }
}

/** Every detection source as a start-up reads them: `<html lang>` as the page was served. */
export function browserDetectionEnvironment(): DetectionEnvironment {
  return { ...browserDetectionSources(), localStorage: readStored() };
}

/**
 * Every detection source as the page holds them now, for the language test pages: `<html lang>`
 * is the live attribute, which the app keeps equal to the interface language.
 */
export function liveDetectionEnvironment(): DetectionEnvironment {
  return {
    ...browserDetectionEnvironment(),
    htmlLang: document.documentElement.getAttribute('lang'),
  };
}
