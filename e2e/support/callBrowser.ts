// Call and room tests: one Chromium per person (`CallBrowser` of @voice/browser-bots), closed after the test.
import { CallBrowser, type CallBrowserOptions } from '@voice/browser-bots';
import { test as base } from './fixtures.ts';

/** The suite's fixtures plus `launchCallBrowser`, whose browsers are closed after the test. */
export const test = base.extend<{
  launchCallBrowser: (options?: CallBrowserOptions) => Promise<CallBrowser>;
}>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright fixtures must destructure their dependencies.
  launchCallBrowser: async ({}, use) => {
    const launched: CallBrowser[] = [];
    await use(async (options) => {
      const browser = await CallBrowser.launch(options);
      launched.push(browser);
      return browser;
    });
    await Promise.all(launched.map((browser) => browser.close()));
  },
});

export { expect } from './fixtures.ts';
