import { describe, expect, it } from 'vitest';
import { type ChunkInfo, preloadTags } from './preloadAppChunk.ts';

function chunk(fileName: string, parts: Partial<ChunkInfo> & { css?: string[] } = {}): ChunkInfo {
  const { css = [], ...rest } = parts;
  return {
    type: 'chunk',
    fileName,
    moduleIds: [],
    imports: [],
    dynamicImports: [],
    viteMetadata: { importedCss: new Set(css) },
    ...rest,
  };
}

const entry = chunk('assets/index.js', {
  imports: ['assets/shared.js'],
  dynamicImports: ['assets/start.js', 'assets/LoginPage.js'],
  css: ['assets/index.css'],
});
const bundle = {
  'assets/index.js': entry,
  'assets/shared.js': chunk('assets/shared.js'),
  'assets/start.js': chunk('assets/start.js', {
    moduleIds: ['/w/src/app/App.tsx', '/w/src/app/start.tsx'],
    imports: ['assets/vendor.js', 'assets/shared.js'],
    css: ['assets/start.css', 'assets/index.css'],
  }),
  'assets/vendor.js': chunk('assets/vendor.js'),
  'assets/LoginPage.js': chunk('assets/LoginPage.js', { moduleIds: ['/w/src/features/auth/LoginPage.tsx'] }),
  'assets/start.css': { type: 'asset' as const },
};

describe('preloadTags()', () => {
  it('names the app chunk, what it imports and its styles, minus what the entry brings', () => {
    const tags = preloadTags(bundle, entry, /\/src\/app\/start\.tsx$/);
    expect(tags.map((tag) => [tag.attrs?.rel, tag.attrs?.href])).toEqual([
      ['stylesheet', '/assets/start.css'],
      ['modulepreload', '/assets/vendor.js'],
      ['modulepreload', '/assets/start.js'],
    ]);
    expect(tags.every((tag) => tag.tag === 'link' && tag.injectTo === 'head')).toBe(true);
  });

  it('finds the dynamic import in a chunk the entry imports, and honours the base', () => {
    const facade = chunk('assets/index.js', { imports: ['assets/boot.js'] });
    const boot = chunk('assets/boot.js', { dynamicImports: ['assets/start.js'] });
    const tags = preloadTags(
      { ...bundle, 'assets/index.js': facade, 'assets/boot.js': boot },
      facade,
      /start\.tsx$/,
      '/app/',
    );
    expect(tags.map((tag) => tag.attrs?.href)).toContain('/app/assets/start.js');
  });

  it('fails the build when the app module is not imported dynamically', () => {
    expect(() => preloadTags(bundle, entry, /\/src\/app\/elsewhere\.tsx$/)).toThrow(/no dynamic import/);
  });
});
