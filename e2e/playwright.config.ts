import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '@voice/browser-bots';

/**
 * Files whose pages make no call and hear no room (accounts, profile, friends, screens…): they
 * run first, two at a time. The rest measure real audio, one at a time: on two cores a second
 * worker's browsers compete with them.
 */
const SCREEN_FILES = [
  'a11y',
  'accounts',
  'dashboard',
  'delivery',
  'errorPage',
  'friends',
  'language',
  'legal',
  'onboarding',
  'prerenderedLogin',
  'profile-screens',
  'profile',
  'rateLimits',
  'roomScreen',
  'screens',
  'socketLimits',
  'theme',
].map((name) => `${name}.spec.ts`);

// Each worker starts its own API (with its own Redis prefix) and SMTP listener (see
// support/fixtures.ts); baseURL comes from there. E2E_WORKERS=2 runs the audio files two at a
// time too (each worker taking whole files), faster and less faithful.
const audioWorkers = Number(process.env.E2E_WORKERS ?? 1);

export default defineConfig({
  testDir: 'tests',
  outputDir: 'test-results',
  workers: Math.max(2, audioWorkers),
  projects: [
    { name: 'screens', testMatch: SCREEN_FILES },
    // After the screens: a failure there skips these (`--no-deps` runs them alone).
    { name: 'audio', testIgnore: SCREEN_FILES, workers: audioWorkers, dependencies: ['screens'] },
  ],
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
