import { describe, expect, it } from 'vitest';
import { type ChunkPlan, planChunks } from './chunks.ts';

const PLAN: ChunkPlan = {
  entry: /\/index\.html$/,
  start: /\/src\/app\/start\.tsx$/,
  visitorPages: /\/src\/features\/auth\/(?:Login|Register)Page\.tsx$/,
};

/** A module graph as Rollup's manualChunks sees it: id → statically imported ids. */
function graph(imports: Record<string, string[]>) {
  return {
    getModuleIds: () => Object.keys(imports)[Symbol.iterator](),
    // biome-ignore lint/suspicious/noExplicitAny: only importedIds is read.
    getModuleInfo: (id: string) => (id in imports ? ({ importedIds: imports[id] } as any) : null),
  };
}

const REACT = '/w/node_modules/react/index.js';
const HELPERS = '\0commonjsHelpers.js';
const MODULES = {
  '/w/index.html': ['/w/src/main.tsx'],
  '/w/src/main.tsx': ['/w/protocol/index.ts', '/w/src/app/pages.ts'],
  '/w/protocol/index.ts': [],
  '/w/src/app/pages.ts': ['/w/protocol/index.ts'],
  '/w/src/app/start.tsx': [REACT, '/w/src/app/App.tsx'],
  '/w/src/app/App.tsx': [REACT, '/w/protocol/index.ts', '/w/src/ui/Button.tsx'],
  [REACT]: [HELPERS],
  [HELPERS]: [],
  '/w/src/ui/Button.tsx': [REACT],
  '/w/src/features/auth/LoginPage.tsx': ['/w/src/features/auth/AuthLayout.tsx', '/w/src/ui/Button.tsx'],
  '/w/src/features/auth/RegisterPage.tsx': [
    '/w/src/features/auth/AuthLayout.tsx',
    '/w/src/features/auth/Terms.tsx',
  ],
  '/w/src/features/auth/AuthLayout.tsx': [REACT],
  '/w/src/features/auth/Terms.tsx': [REACT],
  '/w/src/features/dashboard/DashboardPage.tsx': [
    '/w/src/ui/Dialog.tsx',
    '/w/node_modules/mediasoup-client/x.js',
  ],
  '/w/src/ui/Dialog.tsx': [REACT],
  '/w/node_modules/mediasoup-client/x.js': [],
};

describe('planChunks()', () => {
  const chunks = planChunks(graph(MODULES), PLAN);

  it('keeps the start-up script and what it imports in the entry, apart from the app', () => {
    for (const id of ['/w/index.html', '/w/src/main.tsx', '/w/protocol/index.ts', '/w/src/app/pages.ts']) {
      expect(chunks.get(id), id).toBe('boot');
    }
  });

  it('puts the app and what the visitor pages share into start, each page staying its own chunk', () => {
    for (const id of ['/w/src/app/start.tsx', '/w/src/app/App.tsx', '/w/src/ui/Button.tsx']) {
      expect(chunks.get(id), id).toBe('start');
    }
    expect(chunks.get('/w/src/features/auth/AuthLayout.tsx')).toBe('start');
    expect(chunks.get('/w/src/features/auth/LoginPage.tsx')).toBeUndefined();
    expect(chunks.get('/w/src/features/auth/RegisterPage.tsx')).toBeUndefined();
  });

  it('leaves what one visitor page alone imports with that page', () => {
    expect(chunks.get('/w/src/features/auth/Terms.tsx')).toBeUndefined();
  });

  it('puts the libraries, and the helpers they import, into vendor', () => {
    expect(chunks.get(REACT)).toBe('vendor');
    expect(chunks.get(HELPERS)).toBe('vendor');
  });

  it('leaves the signed-in pages and their libraries to Rollup', () => {
    expect(chunks.get('/w/src/features/dashboard/DashboardPage.tsx')).toBeUndefined();
    expect(chunks.get('/w/src/ui/Dialog.tsx')).toBeUndefined();
    expect(chunks.get('/w/node_modules/mediasoup-client/x.js')).toBeUndefined();
  });

  it('refuses a plan where the start-up script would wait for the libraries', () => {
    const tangled = { ...MODULES, '/w/src/main.tsx': ['/w/protocol/index.ts', HELPERS] };
    expect(() => planChunks(graph(tangled), PLAN)).toThrow(/start-up script and by the libraries/);
  });

  it('fails without a start-up script or an app module', () => {
    const { '/w/src/app/start.tsx': _start, ...withoutStart } = MODULES;
    expect(() => planChunks(graph(withoutStart), PLAN)).toThrow(/no start-up script or no app module/);
  });
});
