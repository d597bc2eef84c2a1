import { defineConfig } from '@playwright/test';

// The swarm test (npm run test:swarm): deploy/swarm/stack.yml on a one-node swarm with the test
// images, brought up once by swarm/globalSetup.ts; its steps run in order in one worker.
// Kept apart from playwright.config.ts, so `npm test -w e2e` does not run it.
export default defineConfig({
  testDir: 'swarm',
  outputDir: 'test-results/swarm',
  globalSetup: './swarm/globalSetup.ts',
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 300_000,
  // The engine and images on a machine the compose test has not prepared; the run stays well below.
  globalTimeout: 40 * 60_000,
  expect: { timeout: 15_000 },
  reporter: 'list',
});
