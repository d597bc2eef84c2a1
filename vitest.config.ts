import { defineConfig } from 'vitest/config';

// Unit and integration tests of every workspace; browser tests live in e2e/ (Playwright).
export default defineConfig({
  test: {
    include: [
      '{protocol,bus,signalling,api,media-server,web,locales}/**/*.test.ts',
      'bench/**/*.test.ts',
      'loadtest/**/*.test.ts',
    ],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration tests share one PostgreSQL database; files run one after another.
    fileParallelism: false,
  },
});
