/** The language context; see LanguageProvider. */
import type { LanguageCode, LanguageEntry } from '@voice/protocol';
import { createContext } from 'react';
import type { LanguageInitResult } from './languageInit.ts';

export interface LanguageValue {
  /** The language shown now. */
  language: LanguageCode;
  /** Every interface language with its code, name, flag and native name. */
  languages: readonly LanguageEntry[];
  /** Applies, stores and (signed in) saves a language; invalid codes are ignored. */
  changeLanguage(code: string): Promise<void>;
  /** True while a change runs. */
  isChanging: boolean;
  /** True once start-up initialisation has finished. */
  isInitialised: boolean;
  /** How start-up initialisation chose the language; null until it has. */
  initialisation: LanguageInitResult | null;
}

export const LanguageContext = createContext<LanguageValue | null>(null);
