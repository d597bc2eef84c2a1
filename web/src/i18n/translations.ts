/**
 * Translation files: /locales/<code>.json, each language a chunk of its own, read with the
 * spec's retries (I18N_LOAD: 5 more attempts, the delay doubling from 350 ms, at most 10 reads
 * at once). Free of i18next and React, so the start-up script (main.tsx) can ask for the
 * start-up language's file while the app's own code is still on its way; i18next's backend
 * (i18n.ts) then gets the same read instead of starting another.
 */
import { I18N_LOAD, isLanguageCode, type LanguageCode } from '@voice/protocol';
import type { ResourceKey } from 'i18next';
import { createLimiter, withRetry } from '../lib/retry.ts';
import { browserDetectionEnvironment, browserLanguageStorage } from './browserEnvironment.ts';
import { detectLanguage } from './detectLanguage.ts';
import { readStoredLanguage } from './languageInit.ts';

const loaders = import.meta.glob<ResourceKey>('../../../locales/*.json', { import: 'default' });
const limit = createLimiter(I18N_LOAD.maxParallelReads);
/** Reads under way or done; a failed one is forgotten, so a later change of language tries again. */
const reads = new Map<string, Promise<ResourceKey>>();

/** The translations of `language`, read once. */
export function loadTranslations(language: string): Promise<ResourceKey> {
  const known = reads.get(language);
  if (known) return known;
  const load = loaders[`../../../locales/${language}.json`];
  if (!load) return Promise.reject(new Error(`No translations for language "${language}"`));
  const read = limit(() => withRetry(load, { retries: I18N_LOAD.retries, delayMs: I18N_LOAD.retryDelayMs }));
  reads.set(language, read);
  read.catch(() => reads.delete(language));
  return read;
}

/**
 * The language the page starts in before the session is known: the stored choice, else the
 * detected one. Nothing is written; LanguageProvider settles the language once the session is in.
 */
export function provisionalLanguage(): LanguageCode {
  const stored = readStoredLanguage(browserLanguageStorage);
  return isLanguageCode(stored) ? stored : detectLanguage(browserDetectionEnvironment()).language;
}
