/**
 * The generator's browsers: each carries up to `perBrowser` participants, one page each, in
 * one BrowserContext per browser, so that its pages share one renderer process
 * (`--process-per-site`, launch.ts) with its threads, its WebRTC engine and its audio playout.
 * A page is still one person: it gets a local storage of its own (a Storage object in place of
 * the context's, before the app runs) holding that participant's token. Speakers and listeners
 * never share a browser, since the fake microphone's WAV is browser-wide: speaker browsers play
 * a speech recording (the voices taking turns from browser to browser). A listener's microphone
 * captures nothing at all: the app gets a silent track (an unconnected receiver's), and mutes it.
 */
import { cpus, totalmem } from 'node:os';
import {
  PEER_CONNECTIONS,
  SPEAKERS,
  silenceFile,
  speechFile,
  trackPeerConnections,
} from '@voice/browser-bots';
import type { Browser, BrowserContext, LaunchOptions, Page } from 'playwright-core';
import { type LaunchBrowser, launchChromium, participantLaunchOptions } from './launch.ts';
import { within } from './timeouts.ts';

export type Voice = 'speaker' | 'listener';

/**
 * tsx (the CLI's runner) compiles with esbuild's keepNames, which wraps named inner functions in
 * a `__name` helper; functions sent to page.evaluate carry those calls into the page, which lacks it.
 */
const KEEP_NAMES_SHIM = 'globalThis.__name = (fn) => fn;';

/**
 * The app's voice settings (its localStorage key `voiceSettings`, as a person sets them in the
 * voice settings dialog) for a participant whose microphone plays a clean recording or silence:
 * no RNNoise worklet, no echo cancellation, no gain control. The audio processing a real
 * person's browser does costs the generator and does not change what the service carries.
 */
const PLAIN_VOICE_SETTINGS = JSON.stringify({
  noiseSuppression: false,
  echoCancellation: false,
  autoGainControl: false,
});

/** A small window: nothing is looked at, and layout of a smaller page costs less. */
const VIEWPORT = { width: 480, height: 360 };

/**
 * Participants a browser carries when not told. A browser's fixed cost (its browser, GPU,
 * network and audio processes: about 200 MB and a tenth of a core, bench:loadtest) is shared by
 * its pages, so more pages a browser is cheaper, up to 8: beyond that one browser's single
 * network and audio processes serialise its pages' packets. At most 4 a core, and fewer on a
 * machine with under 16 GB (one per 2 GB), where a crashed browser should take fewer with it.
 */
export function defaultPerBrowser(cores = cpus().length, memoryBytes = totalmem()): number {
  const byMemory = Math.floor(memoryBytes / (2 * 1024 ** 3));
  return Math.max(1, Math.min(8, cores * 4, byMemory));
}

/** How a generator starts its browsers. */
export interface GeneratorOptions {
  baseURL: string;
  perBrowser: number;
  /**
   * Wraps the launch of browser `index` (an impaired one runs inside a network namespace);
   * default launchChromium.
   */
  launchFor?: (browserIndex: number, impaired: boolean) => LaunchBrowser | undefined;
  /** Every connection relays through TURN (`iceTransportPolicy: 'relay'`). */
  relayOnly?: boolean;
  /** Keep the app's default voice processing (noise suppression...) instead of switching it off. */
  appVoiceProcessing?: boolean;
}

/** A participant's place: its browser's index and its own page, not navigated yet. */
export interface Seat {
  browser: number;
  page: Page;
}

interface OpenBrowser {
  index: number;
  voice: Voice;
  /** Carries one impaired participant (its network is the browser's), never shared. */
  impaired: boolean;
  browser: Promise<Browser>;
  /** The browser's one context, made with its first seat. */
  context: Promise<BrowserContext> | null;
  seats: number;
}

export class Generator {
  readonly #options: GeneratorOptions;
  readonly #browsers: OpenBrowser[] = [];
  #speakerBrowsers = 0;
  #closed = false;

  constructor(options: GeneratorOptions) {
    if (!Number.isInteger(options.perBrowser) || options.perBrowser < 1) {
      throw new Error(`perBrowser must be a whole number from 1, not ${options.perBrowser}`);
    }
    this.#options = options;
  }

  /** Browsers launched so far. */
  get browserCount(): number {
    return this.#browsers.length;
  }

  /**
   * A new page for one participant in a browser of its voice with a seat free (a new browser
   * when none has). `token` goes into the page's own localStorage under `token` before the
   * app's scripts run. An impaired participant gets a browser of its own: the impairment is the
   * browser's network, and its measured loss and delay are then that participant's.
   */
  async seat(voice: Voice, token: string, impaired = false): Promise<Seat> {
    if (this.#closed) throw new Error('The generator is closed');
    let open = impaired
      ? undefined
      : this.#browsers.find((b) => b.voice === voice && !b.impaired && b.seats < this.#options.perBrowser);
    if (!open) {
      const index = this.#browsers.length;
      open = {
        index,
        voice,
        impaired,
        seats: 0,
        context: null,
        browser: this.#launch(index, voice, impaired),
      };
      this.#browsers.push(open);
    }
    open.seats += 1;
    const browser = open.browser;
    open.context ??= browser.then((launched) => this.#newContext(launched));
    const page = await (await open.context).newPage();
    await page.addInitScript(ownStorage, {
      token,
      voiceSettings: this.#options.appVoiceProcessing ? null : PLAIN_VOICE_SETTINGS,
      silentMicrophone: voice === 'listener',
      trackedKey: PEER_CONNECTIONS,
    });
    return { browser: open.index, page };
  }

  async #newContext(browser: Browser): Promise<BrowserContext> {
    const context = await browser.newContext({
      baseURL: this.#options.baseURL,
      locale: 'en-US',
      viewport: VIEWPORT,
      serviceWorkers: 'block',
    });
    await context.addInitScript(KEEP_NAMES_SHIM);
    await context.addInitScript(trackPeerConnections, {
      key: PEER_CONNECTIONS,
      relayOnly: this.#options.relayOnly ?? false,
    });
    return context;
  }

  async #launch(index: number, voice: Voice, impaired: boolean): Promise<Browser> {
    const wav =
      voice === 'speaker'
        ? await speechFile(SPEAKERS[this.#speakerBrowsers++ % SPEAKERS.length] ?? 'bob')
        : await silenceFile();
    const options: LaunchOptions = participantLaunchOptions({ wav });
    const launch = this.#options.launchFor?.(index, impaired) ?? launchChromium;
    return launch(options);
  }

  /** Closes every browser, whatever state it is in. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const browsers = this.#browsers.splice(0);
    await Promise.all(
      browsers.map(async ({ browser }) => {
        const opened = await browser.catch(() => null);
        if (opened) await within(opened.close(), 15_000, undefined);
      }),
    );
  }
}

/**
 * Runs in a participant's page before the app: a local storage of the page's own (the pages of
 * a browser share one context, and so would share its localStorage), holding the token and the
 * voice settings; for a listener, `getUserMedia` answers audio with a silent track that captures
 * nothing (the receiver of an unconnected peer connection), so the page spends nothing on a
 * microphone it keeps muted. No named inner functions: they would need tsx's `__name`.
 */
function ownStorage(options: {
  token: string;
  voiceSettings: string | null;
  silentMicrophone: boolean;
  trackedKey: string;
}): void {
  const items = new Map<string, string>();
  const storage: Storage = {
    getItem: (key) => items.get(String(key)) ?? null,
    setItem: (key, value) => {
      items.set(String(key), String(value));
    },
    removeItem: (key) => {
      items.delete(String(key));
    },
    clear: () => items.clear(),
    key: (index) => [...items.keys()][index] ?? null,
    get length() {
      return items.size;
    },
  };
  Object.defineProperty(window, 'localStorage', { value: storage, configurable: true });
  storage.setItem('token', options.token);
  if (options.voiceSettings) storage.setItem('voiceSettings', options.voiceSettings);
  if (!options.silentMicrophone) return;
  const devices = navigator.mediaDevices;
  const capture = devices.getUserMedia.bind(devices);
  const kept: RTCPeerConnection[] = [];
  devices.getUserMedia = async (constraints) => {
    if (!constraints?.audio || constraints.video) return capture(constraints);
    const connection = new RTCPeerConnection();
    kept.push(connection);
    // Not one of the page's connections to the service (browser-bots' list, which the samples
    // read): it never connects, and would hide a dropped listener's last connection closing.
    const tracked = (window as unknown as Record<string, RTCPeerConnection[] | undefined>)[
      options.trackedKey
    ];
    const index = tracked?.indexOf(connection) ?? -1;
    if (index >= 0) tracked?.splice(index, 1);
    return new MediaStream([connection.addTransceiver('audio', { direction: 'recvonly' }).receiver.track]);
  };
}
