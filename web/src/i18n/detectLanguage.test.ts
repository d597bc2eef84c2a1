import { describe, expect, it } from 'vitest';
import { detectLanguage, toLanguageCode } from './detectLanguage.ts';

describe('detectLanguage', () => {
  it('prefers a valid stored choice', () => {
    expect(detectLanguage('de', ['fr-FR'])).toBe('de');
  });

  it('ignores an invalid stored choice and takes the first supported browser language', () => {
    expect(detectLanguage('xx', ['zh-CN', 'pt-BR', 'en-US'])).toBe('pt');
  });

  it('falls back to English when nothing is supported', () => {
    expect(detectLanguage(null, ['zh-CN', 'ko'])).toBe('en');
    expect(detectLanguage(null, [])).toBe('en');
  });

  it('reduces regional tags to the base language', () => {
    expect(toLanguageCode('JA-jp')).toBe('ja');
    expect(toLanguageCode('es_419')).toBe('es');
    expect(toLanguageCode('nl')).toBeNull();
  });
});
