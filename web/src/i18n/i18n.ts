/**
 * i18next set-up: translations from /locales/<code>.json, each loaded on demand as its
 * own chunk, with retries; ru is the fallback for missing keys.
 */
import {
  DEFAULT_LANGUAGE,
  I18N_LOAD,
  isLanguageCode,
  LANGUAGE_CODES,
  type LanguageCode,
  STORAGE_KEYS,
} from '@voice/protocol';
import i18next, { type BackendModule, type ResourceKey } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { detectLanguage } from './detectLanguage.ts';
import { createLimiter, withRetry } from './retry.ts';

const loaders = import.meta.glob<ResourceKey>('../../../locales/*.json', { import: 'default' });
const limit = createLimiter(I18N_LOAD.maxParallelReads);

async function loadTranslations(language: string): Promise<ResourceKey> {
  const load = loaders[`../../../locales/${language}.json`];
  if (!load) throw new Error(`No translations for language "${language}"`);
  return limit(() => withRetry(load, { retries: I18N_LOAD.retries, delayMs: I18N_LOAD.retryDelayMs }));
}

const bundledBackend: BackendModule = {
  type: 'backend',
  init() {},
  read(language, _namespace, callback) {
    loadTranslations(language).then(
      (resources) => callback(null, resources),
      (error: unknown) => {
        console.error(`Failed to load translations for "${language}"`, error);
        callback(error instanceof Error ? error : new Error(String(error)), false);
      },
    );
  },
};

function readStoredLanguage(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEYS.language);
  } catch {
    return null;
  }
}

function storeLanguage(language: LanguageCode): void {
  try {
    localStorage.setItem(STORAGE_KEYS.language, language);
  } catch {
    // The choice then lasts for this page only.
  }
}

/** Detects the language, loads its translations and makes i18next ready for React. */
export async function initI18n(): Promise<void> {
  const language = detectLanguage(readStoredLanguage(), navigator.languages ?? [navigator.language]);
  storeLanguage(language);
  i18next.on('languageChanged', (code) => {
    document.documentElement.lang = code;
  });
  await i18next
    .use(bundledBackend)
    .use(initReactI18next)
    .init({
      lng: language,
      fallbackLng: DEFAULT_LANGUAGE,
      supportedLngs: [...LANGUAGE_CODES],
      load: 'languageOnly',
      interpolation: { escapeValue: false },
      react: { useSuspense: false },
    });
}

/** Applies and remembers a language the user picked; unknown codes are ignored. */
export async function changeLanguage(code: string): Promise<void> {
  if (!isLanguageCode(code)) return;
  await i18next.changeLanguage(code);
  storeLanguage(code);
}

/** The language currently shown. */
export function currentLanguage(): LanguageCode {
  const code = i18next.resolvedLanguage ?? i18next.language;
  return isLanguageCode(code) ? code : DEFAULT_LANGUAGE;
}
