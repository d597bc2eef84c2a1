/** One interface language. */
export interface LanguageEntry {
  code: LanguageCode;
  /** English name. */
  name: string;
  flag: string;
  /** The language's name in itself. */
  nativeName: string;
}

export const LANGUAGE_CODES = ['ru', 'en', 'es', 'de', 'it', 'ja', 'pt', 'fr'] as const;
export type LanguageCode = (typeof LANGUAGE_CODES)[number];

export const LANGUAGES: readonly LanguageEntry[] = [
  { code: 'ru', name: 'Russian', flag: '🇷🇺', nativeName: 'Русский' },
  { code: 'en', name: 'English', flag: '🇬🇧', nativeName: 'English' },
  { code: 'es', name: 'Spanish', flag: '🇪🇸', nativeName: 'Español' },
  { code: 'de', name: 'German', flag: '🇩🇪', nativeName: 'Deutsch' },
  { code: 'it', name: 'Italian', flag: '🇮🇹', nativeName: 'Italiano' },
  { code: 'ja', name: 'Japanese', flag: '🇯🇵', nativeName: '日本語' },
  { code: 'pt', name: 'Portuguese', flag: '🇵🇹', nativeName: 'Português' },
  { code: 'fr', name: 'French', flag: '🇫🇷', nativeName: 'Français' },
];

/** True when `code` is one of the eight interface languages. */
export function isLanguageCode(code: unknown): code is LanguageCode {
  return typeof code === 'string' && (LANGUAGE_CODES as readonly string[]).includes(code);
}
