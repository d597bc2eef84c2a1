import { defineConfig } from '@playwright/test';

// The compose test (npm run test:compose): the self-hosting stack of docker-compose.yml on test
// images, brought up once by compose/globalSetup.ts; its steps run in order in one worker.
// Kept apart from playwright.config.ts, so `npm test -w e2e` does not run it.
export default defineConfig({
  testDir: 'compose',
  outputDir: 'test-results/compose',
  globalSetup: './compose/globalSetup.ts',
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 300_000,
  // Builds, debootstrap and the stack's start on a cold machine; the run itself stays well below.
  globalTimeout: 45 * 60_000,
  expect: { timeout: 15_000 },
  reporter: 'list',
});
