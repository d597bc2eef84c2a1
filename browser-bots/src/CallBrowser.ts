/**
 * One Chromium per person in a call, and what a call test measures in it. A separate browser
 * per person because the fake microphone's recording (`--use-file-for-fake-audio-capture`) is
 * a browser-wide flag. Every RTCPeerConnection a page creates is kept in a page-global list
 * by an init script (test-only instrumentation: the app knows nothing of it), so the tests can
 * read the connection's getStats() whatever the app does with it.
 */
import { type Browser, type BrowserContext, chromium, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium.ts';
import { type Speaker, speechFile } from './speech.ts';

/** The page-global list of the page's peer connections, oldest first. */
export const PEER_CONNECTIONS = '__e2ePeerConnections';
const FAKE_UI = '--use-fake-ui-for-media-stream';

/** How to start one person's browser. */
export interface CallBrowserOptions {
  /** Whose recording the microphone plays; unset: Chromium's fake beep. */
  speaker?: Speaker;
  /**
   * `refused`: getUserMedia fails with NotAllowedError, as when the person clicks "Block".
   * Chromium's `--use-fake-ui-for-media-stream` answers every prompt with "Allow" and wins over
   * the context's permissions, so that browser starts without it; Playwright then refuses the
   * prompt itself, since the context was granted no 'microphone' permission.
   */
  microphone?: 'allowed' | 'refused';
  /** The API serving the app, for page.goto('/...') and page.request. */
  baseURL?: string;
  /** More Chromium flags, e.g. the compose test's `--ignore-certificate-errors-spki-list`. */
  args?: string[];
  /** Another Chromium executable, e.g. the load tester's wrapper that runs it in a network namespace. */
  executablePath?: string;
}

export class CallBrowser {
  #closed = false;

  private constructor(
    readonly browser: Browser,
    readonly context: BrowserContext,
    readonly page: Page,
  ) {}

  static async launch({
    speaker,
    microphone = 'allowed',
    baseURL,
    args: extraArgs = [],
    executablePath = CHROMIUM_PATH,
  }: CallBrowserOptions = {}): Promise<CallBrowser> {
    const args = CHROMIUM_ARGS.filter((arg) => microphone === 'allowed' || arg !== FAKE_UI);
    args.push(...extraArgs);
    if (speaker) args.push(`--use-file-for-fake-audio-capture=${await speechFile(speaker)}`);
    const browser = await chromium.launch({ executablePath, args });
    try {
      const context = await browser.newContext({
        baseURL,
        locale: 'en-US',
        viewport: { width: 1280, height: 800 },
      });
      await context.addInitScript(trackPeerConnections, { key: PEER_CONNECTIONS });
      // The app's warnings (a failed negotiation says why there) go to the test's output.
      context.on('console', (message) => {
        if (message.type() === 'warning' || message.type() === 'error')
          console.log(`[${speaker ?? 'browser'} ${message.type()}] ${message.text()}`);
      });
      return new CallBrowser(browser, context, await context.newPage());
    } catch (error) {
      await browser.close();
      throw error;
    }
  }

  /** Closes the browser (and with it the context and page). Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.browser.close();
  }
}

/**
 * Runs in the page before its own scripts: RTCPeerConnection becomes a subclass that registers
 * itself in `window[key]`; with `relayOnly` every connection also uses TURN relays only
 * (`iceTransportPolicy: 'relay'`), whatever the app asked for.
 */
export function trackPeerConnections({ key, relayOnly = false }: { key: string; relayOnly?: boolean }): void {
  const connections: RTCPeerConnection[] = [];
  Object.defineProperty(window, key, { value: connections });
  const Native = window.RTCPeerConnection;
  window.RTCPeerConnection = class extends Native {
    constructor(configuration?: RTCConfiguration) {
      super(relayOnly ? { ...configuration, iceTransportPolicy: 'relay' } : configuration);
      connections.push(this);
    }
  };
}

/**
 * For every connected peer connection of the page: its ICE transport policy and the type of the
 * local candidate of its selected pair.
 */
export function selectedPaths(page: Page): Promise<{ policy: string; local: string }[]> {
  return page.evaluate(async (key) => {
    const paths: { policy: string; local: string }[] = [];
    for (const pc of (window as unknown as Record<string, RTCPeerConnection[]>)[key] ?? []) {
      if (pc.connectionState !== 'connected') continue;
      const report = await pc.getStats();
      for (const stats of report.values()) {
        if (stats.type !== 'transport' || !stats.selectedCandidatePairId) continue;
        const pair = report.get(stats.selectedCandidatePairId);
        const local = report.get(pair?.localCandidateId)?.candidateType ?? 'none';
        paths.push({ policy: pc.getConfiguration().iceTransportPolicy ?? 'all', local });
      }
    }
    return paths;
  }, PEER_CONNECTIONS);
}

/** How many RTCPeerConnections the page has made so far (each rejoin makes two more). */
export function connectionCount(page: Page): Promise<number> {
  return page.evaluate(
    (key) => ((window as unknown as Record<string, RTCPeerConnection[]>)[key] ?? []).length,
    PEER_CONNECTIONS,
  );
}

/** RTP packets of audio the page's open connections sent, in all (its voice, in a call or a room). */
export function audioPacketsSent(page: Page): Promise<number> {
  return page.evaluate(async (key) => {
    let sent = 0;
    for (const pc of (window as unknown as Record<string, RTCPeerConnection[]>)[key] ?? []) {
      if (pc.connectionState === 'closed') continue;
      for (const stats of (await pc.getStats()).values()) {
        if (stats.type === 'outbound-rtp' && stats.kind === 'audio') sent += stats.packetsSent ?? 0;
      }
    }
    return sent;
  }, PEER_CONNECTIONS);
}

/** The type of an ICE candidate (RFC 8445): a direct address, one seen by STUN, a TURN relay's, or learnt from a check. */
export type CandidateType = 'host' | 'srflx' | 'relay' | 'prflx';

/** What a page's newest peer connection received, and over which path. */
export interface AudioStats {
  connectionState: RTCPeerConnectionState;
  /** Of the inbound audio RTP stream; 0 before the first packet. */
  bytesReceived: number;
  packetsReceived: number;
  /**
   * Sum of the squared audio level over every decoded second. Chromium decodes received audio
   * only while the remote track plays in a media element: without one it stays 0 as bytes arrive.
   */
  totalAudioEnergy: number;
  /** Of the selected candidate pair; null until ICE has selected one. */
  localCandidateType: CandidateType | null;
  remoteCandidateType: CandidateType | null;
  /** The received codec, e.g. `audio/opus` and `minptime=10;useinbandfec=1`. */
  mimeType: string | null;
  sdpFmtpLine: string | null;
}

/** Where the newest peer connection of a page is in its offer/answer and ICE, without waiting. */
export interface Negotiation {
  signalingState: RTCSignalingState;
  localDescription: RTCSdpType | null;
  remoteDescription: RTCSdpType | null;
  /** Candidates of the other side it knows (from the SDP, trickled, or learnt from a check). */
  remoteCandidates: number;
  /** Connectivity checks it has sent or answered. */
  checks: number;
}

export function negotiation(page: Page): Promise<Negotiation> {
  return page.evaluate(async (key) => {
    const connections = (window as unknown as Record<string, RTCPeerConnection[] | undefined>)[key];
    const pc = connections?.at(-1);
    if (!pc) throw new Error('The page has created no RTCPeerConnection');
    const stats = [...(await pc.getStats()).values()] as Array<Record<string, unknown>>;
    const count = (value: unknown) => (typeof value === 'number' ? value : 0);
    return {
      signalingState: pc.signalingState,
      localDescription: pc.localDescription?.type ?? null,
      remoteDescription: pc.remoteDescription?.type ?? null,
      remoteCandidates: stats.filter((s) => s.type === 'remote-candidate').length,
      checks: stats
        .filter((s) => s.type === 'candidate-pair')
        .reduce((sum, s) => sum + count(s.requestsSent) + count(s.requestsReceived), 0),
    };
  }, PEER_CONNECTIONS);
}

/** getStats() of the newest RTCPeerConnection the page created; throws if it created none. */
export function audioStats(page: Page): Promise<AudioStats> {
  return page.evaluate(async (key) => {
    const connections = (window as unknown as Record<string, RTCPeerConnection[] | undefined>)[key];
    const pc = connections?.at(-1);
    if (!pc) throw new Error('The page has created no RTCPeerConnection');
    const report = await pc.getStats();
    // RTCStatsReport entries are plain dictionaries whose fields depend on their type.
    type Stats = Record<string, unknown> & { type: string };
    const all = [...report.values()] as Stats[];
    const byId = (id: unknown) =>
      typeof id === 'string' ? (report.get(id) as Stats | undefined) : undefined;
    const inbound = all.find((s) => s.type === 'inbound-rtp' && s.kind === 'audio');
    const transport = all.find((s) => s.type === 'transport' && s.selectedCandidatePairId);
    const pair = byId(transport?.selectedCandidatePairId);
    const codec = byId(inbound?.codecId);
    const number = (value: unknown) => (typeof value === 'number' ? value : 0);
    const candidateType = (id: unknown) =>
      (byId(id)?.candidateType as 'host' | 'srflx' | 'relay' | 'prflx' | undefined) ?? null;
    return {
      connectionState: pc.connectionState,
      bytesReceived: number(inbound?.bytesReceived),
      packetsReceived: number(inbound?.packetsReceived),
      totalAudioEnergy: number(inbound?.totalAudioEnergy),
      localCandidateType: candidateType(pair?.localCandidateId),
      remoteCandidateType: candidateType(pair?.remoteCandidateId),
      mimeType: (codec?.mimeType as string | undefined) ?? null,
      sdpFmtpLine: (codec?.sdpFmtpLine as string | undefined) ?? null,
    };
  }, PEER_CONNECTIONS);
}

/** How much more audio to wait for. */
export interface AudioGrowth {
  /** More inbound bytes than now. */
  bytes?: number;
  /** More totalAudioEnergy than now (the speech recordings, played back, add a few tenths a second). */
  energy?: number;
  timeoutMs?: number;
}

/**
 * Waits until the page's newest peer connection has received `bytes` more audio bytes and
 * `energy` more audio energy than when called; returns the stats before and after. Throws
 * with the last stats when it does not happen within `timeoutMs`.
 */
export async function waitForAudioGrowth(
  page: Page,
  { bytes = 0, energy = 0, timeoutMs = 10_000 }: AudioGrowth,
): Promise<{ before: AudioStats; after: AudioStats }> {
  const before = await audioStats(page);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const after = await audioStats(page);
    const grown =
      after.bytesReceived - before.bytesReceived >= bytes &&
      after.totalAudioEnergy - before.totalAudioEnergy >= energy;
    if (grown) return { before, after };
    if (Date.now() > deadline) {
      throw new Error(
        `Inbound audio did not grow by ${bytes} bytes and ${energy} energy within ${timeoutMs} ms: ` +
          `before ${JSON.stringify(before)}, after ${JSON.stringify(after)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
