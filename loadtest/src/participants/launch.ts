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
 * Flags on top of browser-bots' CHROMIUM_ARGS (no GPU, fake media, no background traffic) and
 * Playwright's own (which already stop background timer throttling, crash reports and
 * extensions, and pass a `--disable-features` list a second one here would replace):
 * - no output device (`--mute-audio`): received audio is still decoded, so getStats() keeps
 *   counting its energy, but nothing is mixed for a sound card;
 * - autoplay without a click: a participant arriving by a room link never clicks before the
 *   room's audio elements start;
 * - a listener's page is blanked after joining: its renderer must keep its priority and pace;
 * - one renderer process for all the pages of a site (`--process-per-site`): a browser's
 *   participants are pages of one context (Generator), and share its threads and audio playout
 *   instead of each starting a renderer of its own.
 */
export const LOADTEST_ARGS = [
  '--process-per-site',
  '--mute-audio',
  '--autoplay-policy=no-user-gesture-required',
  '--disable-renderer-backgrounding',
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
