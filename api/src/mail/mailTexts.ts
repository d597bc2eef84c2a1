/**
 * Mail wording in every interface language, read once from the shared locale files
 * (key `mail.*`), so a person gets mail in the language their profile has.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_LANGUAGE, LANGUAGE_CODES, type LanguageCode } from '@voice/protocol';

const LOCALES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../locales');

/** The texts of the password-reset mail. */
export interface PasswordResetTexts {
  subject: string;
  greeting: string;
  intro: string;
  action: string;
  ignore: string;
}

interface LocaleFile {
  app: { name: string };
  mail: { passwordReset: PasswordResetTexts };
}

const locales = new Map<LanguageCode, LocaleFile>(
  LANGUAGE_CODES.map((code) => [
    code,
    JSON.parse(readFileSync(path.join(LOCALES_DIR, `${code}.json`), 'utf8')) as LocaleFile,
  ]),
);

/** Replaces `{{name}}` placeholders, as i18next does in the web. */
function interpolate(text: string, values: Record<string, string>): string {
  return text.replace(/\{\{(\w+)\}\}/g, (match, key: string) => values[key] ?? match);
}

/** The reset mail's texts in `language` (the default language when unknown), filled in. */
export function passwordResetTexts(language: string, values: { name: string }): PasswordResetTexts {
  const locale = locales.get(language as LanguageCode) ?? (locales.get(DEFAULT_LANGUAGE) as LocaleFile);
  const all = { ...values, app: locale.app.name };
  const texts = locale.mail.passwordReset;
  return {
    subject: interpolate(texts.subject, all),
    greeting: interpolate(texts.greeting, all),
    intro: interpolate(texts.intro, all),
    action: interpolate(texts.action, all),
    ignore: interpolate(texts.ignore, all),
  };
}
