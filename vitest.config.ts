import { defineConfig } from 'vitest/config';

// Unit and integration tests of every workspace; browser tests live in e2e/ (Playwright).
export default defineConfig({
  test: {
    include: [
      '{protocol,bus,signalling,api,media-server,web,locales}/**/*.test.ts',
      'bench/**/*.test.ts',
      'loadtest/**/*.test.ts',
      'deploy/**/*.test.ts',
    ],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // What media servers say of a room's members reaches the API at most twice a second
    // (RoomMembers is gathered like peersChanged): a poll for it needs more than the default 1 s.
    expect: { poll: { timeout: 5000 } },
    // Two files at a time: most of an integration test's time is waiting (timers, sockets, a
    // real worker), so two halve the suite's time on this 2-core machine. They share one
    // PostgreSQL database and one Redis safely: every test makes its own accounts and rooms,
    // every test server its own Redis prefix, and migrations take turns on an advisory lock.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
