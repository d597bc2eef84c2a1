import { useContext } from 'react';
import { LanguageContext, type LanguageValue } from './LanguageContext.ts';

/** The interface language and its controls; throws outside LanguageProvider (SPEC section 8). */
export function useLanguage(): LanguageValue {
  const value = useContext(LanguageContext);
  if (!value) throw new Error('useLanguage must be used within a LanguageProvider');
  return value;
}
