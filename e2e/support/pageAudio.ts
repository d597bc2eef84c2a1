/**
 * What a page's AudioContexts do (the app's voice meter runs one), and a page that says it is
 * hidden as a background tab would: headless pages are always visible otherwise.
 */
import type { Page } from '@playwright/test';

/** Counts the page's AudioContexts from its next load on (see runningAudioContexts). */
export async function trackAudioContexts(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const made: AudioContext[] = [];
    const Original = window.AudioContext;
    window.AudioContext = class extends Original {
      constructor(options?: AudioContextOptions) {
        super(options);
        made.push(this);
      }
    };
    Object.assign(window, { runningAudioContexts: () => made.filter((c) => c.state === 'running').length });
  });
}

/** How many of the page's AudioContexts run (not suspended, not closed). */
export function runningAudioContexts(page: Page): Promise<number> {
  return page.evaluate(() =>
    (window as unknown as { runningAudioContexts(): number }).runningAudioContexts(),
  );
}

/** The page says it is hidden (or shown again) and tells its listeners. */
export function setPageHidden(page: Page, hidden: boolean): Promise<void> {
  return page.evaluate((hidden) => {
    Object.defineProperty(document, 'visibilityState', {
      configurable: true,
      get: () => (hidden ? 'hidden' : 'visible'),
    });
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => hidden });
    document.dispatchEvent(new Event('visibilitychange'));
  }, hidden);
}
