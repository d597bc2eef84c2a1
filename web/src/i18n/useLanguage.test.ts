import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { useLanguage } from './useLanguage.ts';

function Probe() {
  return createElement('span', null, useLanguage().language);
}

describe('useLanguage', () => {
  it('is an error outside its provider', () => {
    expect(() => renderToString(createElement(Probe))).toThrow(
      'useLanguage must be used within a LanguageProvider',
    );
  });
});
