/**
 * The report's charts as PNG files for CI logs: each SVG rendered by Debian's Chromium (the one
 * the browser bots use) and the element screenshotted into DIR/plots/<id>.png. One browser, one
 * page, every chart in turn.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { SetupError } from '../cli/errors.ts';
import type { Plot } from './svg.ts';

/** Writes plots/<id>.png under `dir` for each plot; returns the files written. */
export async function writePngs(dir: string, plots: Plot[]): Promise<string[]> {
  // Loaded here so that commands which draw nothing do not load Playwright.
  const [{ chromium }, { CHROMIUM_ARGS, CHROMIUM_PATH }] = await Promise.all([
    import('playwright-core'),
    import('@voice/browser-bots'),
  ]);
  if (!existsSync(CHROMIUM_PATH))
    throw new SetupError(`no Chromium at ${CHROMIUM_PATH} for the PNG plots (set CHROMIUM_PATH)`);
  const plotsDir = join(dir, 'plots');
  await mkdir(plotsDir, { recursive: true });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 800, height: 400 } });
    const files: string[] = [];
    for (const plot of plots) {
      await page.setContent(`<!doctype html><body style="margin:0">${plot.svg}</body>`);
      const file = join(plotsDir, `${plot.id}.png`);
      await page.locator('svg').screenshot({ path: file });
      files.push(file);
    }
    return files;
  } finally {
    await browser.close();
  }
}
