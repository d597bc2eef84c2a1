/**
 * i18next set-up: translations from /locales/<code>.json, each loaded on demand as its
 * own chunk, with retries; ru is the fallback for missing keys. The start-up language is
 * provisional (stored or detected, nothing written) until LanguageProvider initialises.
 */
import {
  DEFAULT_LANGUAGE,
  I18N_LOAD,
  isLanguageCode,
  LANGUAGE_CODES,
  type LanguageCode,
} from '@voice/protocol';
import i18next, { type BackendModule, type ResourceKey } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { browserDetectionEnvironment, browserLanguageStorage } from './browserEnvironment.ts';
import { detectLanguage } from './detectLanguage.ts';
import { readStoredLanguage } from './languageInit.ts';
import { createLimiter, withRetry } from './retry.ts';

const loaders = import.meta.glob<ResourceKey>('../../../locales/*.json', { import: 'default' });
const limit = createLimiter(I18N_LOAD.maxParallelReads);
const NAMESPACE = 'translation';

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

/** Loads the provisional language's translations and makes i18next ready for React. */
export async function initI18n(): Promise<void> {
  const stored = readStoredLanguage(browserLanguageStorage);
  const language = isLanguageCode(stored) ? stored : detectLanguage(browserDetectionEnvironment()).language;
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

/** Switches the interface to `code`; rejects when its translations could not be loaded. */
export async function applyLanguage(code: LanguageCode): Promise<void> {
  await i18next.changeLanguage(code);
  if (!i18next.hasResourceBundle(code, NAMESPACE)) {
    throw new Error(`Translations for "${code}" are not available`);
  }
}

/** The language currently shown. */
export function currentLanguage(): LanguageCode {
  const code = i18next.resolvedLanguage ?? i18next.language;
  return isLanguageCode(code) ? code : DEFAULT_LANGUAGE;
}

/** Calls `listener` after every language change; returns the unsubscribe function. */
export function onLanguageChanged(listener: () => void): () => void {
  i18next.on('languageChanged', listener);
  return () => i18next.off('languageChanged', listener);
}
