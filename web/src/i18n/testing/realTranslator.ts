/**
 * For tests: an i18next instance with the real translation files of all eight languages, so a
 * test reads the words a person would see rather than keys.
 */
import { readFileSync } from 'node:fs';
import { LANGUAGE_CODES } from '@voice/protocol';
import i18next, { type i18n, type Resource } from 'i18next';

const resources: Resource = Object.fromEntries(
  LANGUAGE_CODES.map((code) => [
    code,
    {
      translation: JSON.parse(
        readFileSync(new URL(`../../../../locales/${code}.json`, import.meta.url), 'utf8'),
      ),
    },
  ]),
);

/** A fresh i18next instance in `language`, with every language's real translations loaded. */
export async function realTranslator(language: string): Promise<i18n> {
  const instance = i18next.createInstance();
  await instance.init({
    lng: language,
    resources,
    interpolation: { escapeValue: false },
    showSupportNotice: false,
  });
  return instance;
}
