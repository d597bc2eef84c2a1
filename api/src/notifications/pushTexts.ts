/**
 * Push notification wording in every interface language, read once from the shared locale
 * files (key `push.*`), so a notification speaks the recipient's profile language.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_LANGUAGE, LANGUAGE_CODES, type LanguageCode } from '@voice/protocol';

const LOCALES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../locales');

/** The `push` section of a locale file. */
export interface PushTexts {
  incomingCall: { title: string; body: string; accept: string; reject: string };
  friendRequest: { title: string; body: string; accept: string };
  roomInvitation: { title: string; body: string; join: string };
  test: { title: string; body: string };
}

interface LocaleFile {
  app: { name: string };
  push: PushTexts;
}

const locales = new Map<LanguageCode, LocaleFile>(
  LANGUAGE_CODES.map((code) => [
    code,
    JSON.parse(readFileSync(path.join(LOCALES_DIR, `${code}.json`), 'utf8')) as LocaleFile,
  ]),
);

/** The texts in `language` (the default language when unknown) and a filler of `{{placeholders}}`. */
export function pushTexts(language: string): {
  texts: PushTexts;
  fill(text: string, values?: Record<string, string>): string;
} {
  const locale = locales.get(language as LanguageCode) ?? (locales.get(DEFAULT_LANGUAGE) as LocaleFile);
  return {
    texts: locale.push,
    fill: (text, values = {}) => {
      const all: Record<string, string> = { app: locale.app.name, ...values };
      return text.replace(/\{\{(\w+)\}\}/g, (match, key: string) => all[key] ?? match);
    },
  };
}
