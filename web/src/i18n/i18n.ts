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
import { createLimiter, withRetry } from '../lib/retry.ts';
import { browserDetectionEnvironment, browserLanguageStorage } from './browserEnvironment.ts';
import { detectLanguage } from './detectLanguage.ts';
import { readStoredLanguage } from './languageInit.ts';

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

/**
 * Keeps `<html lang>` equal to the language the interface shows (hyphenation, fonts, screen
 * readers, and the language test page all read it): the one whose translations are in.
 */
function syncDocumentLanguage(): void {
  document.documentElement.lang = currentLanguage();
}

/** Loads the provisional language's translations and makes i18next ready for React. */
export async function initI18n(): Promise<void> {
  const stored = readStoredLanguage(browserLanguageStorage);
  const language = isLanguageCode(stored) ? stored : detectLanguage(browserDetectionEnvironment()).language;
  // Set before the translations load, so even a page that fails to load them is not marked "en".
  document.documentElement.lang = language;
  i18next.on('languageChanged', syncDocumentLanguage);
  i18next.on('loaded', syncDocumentLanguage);
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
  syncDocumentLanguage();
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
