/**
 * How the load tester starts one Chromium: the flags that make a participant cheap, and the one
 * small function every browser launch goes through, so a caller can wrap it (helper G's network
 * impairment runs some browsers inside a network namespace through an `executablePath` wrapper).
 */
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '@voice/browser-bots';
import { type Browser, chromium, type LaunchOptions } from 'playwright-core';

/** Starts a browser from Playwright launch options; the default is `launchChromium`. */
export type LaunchBrowser = (options: LaunchOptions) => Promise<Browser>;

/**
 * What Playwright's own launch turns off (its chromiumSwitches.ts, as of playwright-core 1.5x):
 * restated here because Chromium keeps only the last `--disable-features` and
 * `--enable-features` of its command line (chrome://version/?show-variations-cmd shows it), and
 * the load tester passes its own. Most of them stop requests to outside addresses at start-up
 * (search preconnects, optimization hints, network time, account lists, AI mode).
 */
const PLAYWRIGHT_DISABLED_FEATURES = [
  'AimEnabled',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsFirstBalancedModeAutoEnable',
  'HttpsUpgrades',
  'LensOverlay',
  'MediaRouter',
  'NetworkTimeServiceQuerying',
  'OptimizationHints',
  'PaintHolding',
  'PreconnectToSearch',
  'ThirdPartyStoragePartitioning',
];
const PLAYWRIGHT_ENABLED_FEATURES = ['CDPScreenshotNewSurface', 'SkipListAccountsWithoutGaiaCookies'];

/**
 * Chromium's services a browser runs inside its own process instead of one process each: the
 * audio service (the fake microphones' capture and the pages' playout streams), the network
 * service (every UDP packet of every page crossed to it and back) and the GPU process (nothing to
 * draw on: `--disable-gpu`). Each hop between processes was a copy and a wake-up per 10 ms of
 * audio or per packet. bench:loadtest, 8 listeners at 8 a browser, back to back: 4.4% -> 3.5% of a
 * core and 47 -> 37 MB each.
 */
const SERVICES_IN_PROCESS = {
  args: ['--in-process-gpu'],
  enable: ['NetworkServiceInProcess2'],
  disable: ['AudioServiceOutOfProcess'],
};

/**
 * Renderers a headless Chromium starts that no participant uses: the address bar's two popups
 * (WebUI pages of a window nobody sees, preloaded into a renderer of their own: about 55 MB of a
 * browser) and a spare renderer kept warm for the next site (a browser's pages are all of one
 * site, in one renderer). Found in the browser's CDP targets (`browser_ui`
 * chrome://omnibox-popup.top-chrome/ and its omnibox_popup_aim.html).
 */
const UNUSED_RENDERERS = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup', 'SpareRendererForSitePerProcess'];

/**
 * V8's young generation at 1 MB a semi-space instead of up to 16: a renderer holds one V8 heap
 * for all its pages, whose app allocates little once joined, so collecting the young objects more
 * often costs nothing measurable and leaves the pages' memory smaller. bench:loadtest, 8 listeners
 * at 8 a browser, alternating: 40.7 MB each without, 34.5 and 35.1 MB with.
 */
const SMALL_YOUNG_GENERATION = '--js-flags=--max-semi-space-size=1';

/**
 * Flags on top of browser-bots' CHROMIUM_ARGS (no GPU, fake media, no background traffic) and
 * Playwright's own (which already stop background timer throttling, crash reports and
 * extensions):
 * - no output device (`--mute-audio`): received audio is still decoded, so getStats() keeps
 *   counting its energy, but nothing is mixed for a sound card;
 * - autoplay without a click: a participant arriving by a room link never clicks before the
 *   room's audio elements start;
 * - a listener's page is blanked after joining: its renderer must keep its priority and pace;
 * - one renderer process for all the pages of a site (`--process-per-site`): a browser's
 *   participants are pages of one context (Generator), and share its threads and audio playout
 *   instead of each starting a renderer of its own;
 * - Chromium's audio, network and GPU services in the browser's process (SERVICES_IN_PROCESS),
 *   no renderer for what only a visible browser window uses (UNUSED_RENDERERS), and a small
 *   young generation for the renderer's one V8 heap (SMALL_YOUNG_GENERATION).
 */
export const LOADTEST_ARGS = [
  '--process-per-site',
  '--mute-audio',
  '--autoplay-policy=no-user-gesture-required',
  '--disable-renderer-backgrounding',
  ...SERVICES_IN_PROCESS.args,
  SMALL_YOUNG_GENERATION,
  `--enable-features=${[...PLAYWRIGHT_ENABLED_FEATURES, ...SERVICES_IN_PROCESS.enable].join(',')}`,
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...SERVICES_IN_PROCESS.disable, ...UNUSED_RENDERERS].join(',')}`,
];

/** What a participant browser plays into its fake microphone. */
export interface BrowserMicrophone {
  /** A WAV file (speech for speakers, silence for listeners); Chromium loops it. */
  wav: string;
}

/** Launch options for a participant browser playing `microphone`. */
export function participantLaunchOptions({ wav }: BrowserMicrophone): LaunchOptions {
  return {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, ...LOADTEST_ARGS, `--use-file-for-fake-audio-capture=${wav}`],
  };
}

/** The plain launch: Debian's Chromium (CHROMIUM_PATH) through playwright-core. */
export const launchChromium: LaunchBrowser = (options) => chromium.launch(options);
