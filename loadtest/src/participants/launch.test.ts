import { silenceFile } from '@voice/browser-bots';
import type { Browser, CDPSession } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOADTEST_ARGS, launchChromium, participantLaunchOptions } from './launch.ts';

/** The value of the one `--NAME=` flag of `args`. */
const only = (args: string[], name: string) => {
  const values = args.filter((arg) => arg.startsWith(`--${name}=`));
  expect(values, name).toHaveLength(1);
  return (values[0] as string).slice(name.length + 3).split(',');
};

describe('a participant browser', () => {
  let browser: Browser;
  let cdp: CDPSession;

  beforeAll(async () => {
    browser = await launchChromium(participantLaunchOptions({ wav: await silenceFile() }));
    cdp = await browser.newBrowserCDPSession();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('runs the audio, network and GPU services inside the browser process, and no renderer it does not use', async () => {
    const page = await (await browser.newContext()).newPage();
    // An audio stream open, as a participant's playout keeps one: its service has started.
    await page.evaluate(async () => {
      const context = new AudioContext();
      const tone = context.createOscillator();
      tone.connect(context.destination);
      tone.start();
      await context.resume();
    });
    const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
    const types = processInfo.map((info) => info.type);
    expect(types).toContain('browser');
    expect(types).toContain('renderer');
    expect(types).not.toContain('GPU');
    expect(types.filter((type) => /audio|network/i.test(type))).toEqual([]);
    // One renderer: the page's. No address bar popups preloaded, no spare.
    expect(types.filter((type) => type === 'renderer')).toHaveLength(1);
    const { targetInfos } = await cdp.send('Target.getTargets');
    expect(targetInfos.map((target) => `${target.type} ${target.url}`)).toEqual(['page about:blank']);
    await page.close();
  });

  it("keeps Playwright's features off: Chromium takes only the last --disable-features", async () => {
    const disabled = only(LOADTEST_ARGS, 'disable-features');
    const enabled = only(LOADTEST_ARGS, 'enable-features');
    const page = await browser.newPage();
    await page.goto('chrome://version/?show-variations-cmd');
    const variations = await page.locator('body').innerText();
    const listed = (name: string) => {
      const match = new RegExp(`--${name}="([^"]*)"`).exec(variations);
      return match?.[1]?.split(',') ?? [];
    };
    // The requests to outside addresses that Playwright's list stops stay stopped.
    for (const feature of [
      'PreconnectToSearch',
      'OptimizationHints',
      'NetworkTimeServiceQuerying',
      'MediaRouter',
    ])
      expect(disabled).toContain(feature);
    expect(listed('disable-features')).toEqual(expect.arrayContaining(disabled));
    expect(listed('enable-features')).toEqual(expect.arrayContaining(enabled));
    await page.close();
  });
});
