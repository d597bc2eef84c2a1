/** Debian's Chromium; Playwright's own browser download is impossible offline. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Every browser of the suite gets these; the fake media flags give it a microphone that is
 * always allowed (see CallBrowser.ts for one that is refused, or plays a recording).
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--use-fake-ui-for-media-stream',
  '--use-fake-device-for-media-stream',
];
