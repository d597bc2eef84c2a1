import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '@voice/browser-bots';

// Each worker starts its own API (with its own Redis prefix) and SMTP listener (see
// support/fixtures.ts); baseURL comes from there. One worker by default: the call and room
// tests measure real audio, and on two cores a second worker's browsers compete with them.
// E2E_WORKERS=2 runs two (each taking whole files), about twice as fast.
export default defineConfig({
  testDir: 'tests',
  outputDir: 'test-results',
  workers: Number(process.env.E2E_WORKERS ?? 1),
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: 'list',
  use: {
    browserName: 'chromium',
    launchOptions: {
      executablePath: CHROMIUM_PATH,
      args: CHROMIUM_ARGS,
    },
    locale: 'en-US',
    viewport: { width: 1280, height: 800 },
    actionTimeout: 10_000,
    navigationTimeout: 20_000,
    screenshot: 'only-on-failure',
    // A failed test keeps its trace (actions, DOM snapshots, network, console) but not a
    // screencast: recording one makes every page composite and encode frames all the time, which
    // with four browsers in a room cost two thirds of a core here (measured: their GPU and browser
    // processes went from 82% to 17% of a core without it) and starved the pages on two cores.
    trace: { mode: 'retain-on-failure', screenshots: false },
  },
});
