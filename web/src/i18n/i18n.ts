/**
 * i18next set-up: translations from /locales/<code>.json, each loaded on demand as its own
 * chunk, with retries (translations.ts). Only the language shown is read before the first
 * screen; ru, the fallback for a missing key, is read after it (addFallbackLanguage), or at
 * once when the language shown could not be read. The start-up language is provisional
 * (stored or detected, nothing written) until LanguageProvider initialises.
 */
import { DEFAULT_LANGUAGE, isLanguageCode, LANGUAGE_CODES, type LanguageCode } from '@voice/protocol';
import i18next, { type BackendModule } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { loadTranslations, provisionalLanguage } from './translations.ts';

const NAMESPACE = 'translation';

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
  const language = provisionalLanguage();
  // Set before the translations load, so even a page that fails to load them is not marked "en".
  document.documentElement.lang = language;
  i18next.on('languageChanged', syncDocumentLanguage);
  i18next.on('loaded', syncDocumentLanguage);
  await i18next
    .use(bundledBackend)
    .use(initReactI18next)
    .init({
      lng: language,
      // No fallback yet: i18next would read it before the first screen (addFallbackLanguage).
      fallbackLng: false,
      supportedLngs: [...LANGUAGE_CODES],
      load: 'languageOnly',
      interpolation: { escapeValue: false },
      react: { useSuspense: false },
      // i18next's sponsorship notice in the console means nothing to the people using the app.
      showSupportNotice: false,
    });
  if (!i18next.hasResourceBundle(language, NAMESPACE)) {
    // Without its translations the page would show raw keys: the fallback's are needed now,
    // and the language is resolved again so that the fallback counts as the one shown.
    await addFallbackLanguage();
    await i18next.changeLanguage(language);
  }
  syncDocumentLanguage();
}

/**
 * Reads the default language's translations and makes them the fallback for keys missing
 * from the language shown (SPEC section 1: ru is the fallback). A failed read leaves the
 * interface without a fallback; the failure is logged by the backend.
 */
export async function addFallbackLanguage(): Promise<void> {
  await i18next.loadLanguages(DEFAULT_LANGUAGE);
  if (!i18next.hasResourceBundle(DEFAULT_LANGUAGE, NAMESPACE)) return;
  // i18next resolves the fallback from its options on every lookup and language change.
  i18next.options.fallbackLng = [DEFAULT_LANGUAGE];
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
