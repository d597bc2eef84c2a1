/**
 * One participant's page and what it measured: join time, first audio, the app's error text,
 * and a ParticipantSample every second (from one page.evaluate, see pageStats.ts). The room and
 * call flows (RoomParticipant.ts, CallPair.ts) drive the page; this class only watches it.
 */
import type { Page } from 'playwright-core';
import type { ImpairSpec, ParticipantResult, ParticipantSample } from '../results/types.ts';
import type { Seat } from './Generator.ts';
import { type PageCounters, readCounters, totalEnergy } from './pageStats.ts';
import { within } from './timeouts.ts';

/** The account a participant uses (the seed route's answer, or browser-bots' createPerson). */
export interface Account {
  id: string;
  username: string;
  displayName: string;
  token: string;
}

/** Received energy above this is a voice, not the decoder's rounding of silence. */
export const AUDIO_ENERGY_THRESHOLD = 0.001;
/** How often a joined participant looks for its first audio (the per-second sample is too coarse). */
const FIRST_AUDIO_POLL_MS = 200;
const FIRST_AUDIO_WAIT_MS = 60_000;
/** Seconds without any peer connection that make a joined participant dropped (a reconnect takes less). */
const DROPPED_AFTER_SAMPLES = 5;
/** A page that takes longer than this to report its stats is counted as not answering this second. */
const SAMPLE_TIMEOUT_MS = 3_000;
const CLOSE_TIMEOUT_MS = 10_000;

/** The voice panel, in a room or a call; `data-status` says connecting or connected. */
export const VOICE_PANEL = 'section.voice-panel';
/** The panel's mute toggle (the one the M key also works), found by its shortcut, in any language. */
export const MUTE_BUTTON = `${VOICE_PANEL} button[aria-keyshortcuts="M"]`;
/** The panel's leave / hang-up button. */
export const LEAVE_BUTTON = `${VOICE_PANEL} .icon-button--danger`;

export class Participant {
  readonly page: Page;
  readonly browser: number;
  joinMs: number | null = null;
  firstAudioMs: number | null = null;
  /** On a stage: hand raised → invited to speak (a speaker the host invited); null otherwise. */
  stageMs: number | null = null;
  error: string | null = null;
  impair: ImpairSpec | null = null;
  readonly samples: ParticipantSample[] = [];
  #startedAt: number | null = null;
  #previous: { at: number; bytesSent: number } | null = null;
  #hadConnections = false;
  /** Samples in a row without a peer connection, after having had one. */
  #withoutConnection = 0;
  #closed = false;
  /** The page's last request that got no answer (method, path, Chromium's reason). */
  #lastFailedRequest: string | null = null;

  constructor(
    readonly account: Account,
    readonly role: ParticipantResult['role'],
    readonly seat: Seat,
    page: Page,
    /** Who sent inbound audio no room element claims (the other party of a call). */
    readonly unmatchedAs = '?',
  ) {
    this.browser = seat.browser;
    this.page = page;
    // A request cancelled by the app or by a navigation (net::ERR_ABORTED) is not a failure.
    page.on('requestfailed', (request) => {
      const reason = request.failure()?.errorText ?? 'failed';
      if (reason === 'net::ERR_ABORTED') return;
      this.#lastFailedRequest = `${request.method()} ${new URL(request.url()).pathname}: ${reason}`;
    });
  }

  /**
   * The page's last request that got no answer, as "(GET /api/rooms/…: net::ERR_CONNECTION_RESET)",
   * or '' when none failed: what stands behind an error such as the app's "Network error".
   */
  get failedRequest(): string {
    return this.#lastFailedRequest ? ` (${this.#lastFailedRequest})` : '';
  }

  static open(
    account: Account,
    role: ParticipantResult['role'],
    seat: Seat,
    unmatchedAs?: string,
  ): Participant {
    return new Participant(account, role, seat, seat.page, unmatchedAs);
  }

  get joined(): boolean {
    return this.joinMs !== null && this.error === null && !this.#closed;
  }

  /** The join click (or Accept): the clock of joinMs and firstAudioMs starts. */
  markStart(): void {
    this.#startedAt = Date.now();
  }

  /** In the room or call now. */
  markJoined(): void {
    if (this.#startedAt !== null) this.joinMs = Date.now() - this.#startedAt;
  }

  fail(message: string): void {
    this.error ??= message.split('\n')[0]?.slice(0, 300) ?? message;
  }

  /**
   * Polls (every 200 ms, up to a minute) until audio energy arrives, for firstAudioMs to the
   * nearest fifth of a second; stops early when the participant leaves.
   */
  async watchFirstAudio(): Promise<void> {
    const deadline = Date.now() + FIRST_AUDIO_WAIT_MS;
    while (this.firstAudioMs === null && !this.#closed && Date.now() < deadline) {
      const counters = await within(readCounters(this.page, this.unmatchedAs), SAMPLE_TIMEOUT_MS, null);
      if (counters) this.#noteAudio(counters);
      if (this.firstAudioMs === null)
        await new Promise((resolve) => setTimeout(resolve, FIRST_AUDIO_POLL_MS));
    }
  }

  #noteAudio(counters: PageCounters): void {
    if (
      this.firstAudioMs === null &&
      this.#startedAt !== null &&
      totalEnergy(counters) > AUDIO_ENERGY_THRESHOLD
    ) {
      this.firstAudioMs = Date.now() - this.#startedAt;
    }
  }

  /** Takes this second's sample (`t` since the run started); a page that cannot answer counts as not joined. */
  async sample(t: number): Promise<void> {
    if (this.#closed) return;
    const counters = this.joined
      ? await within(readCounters(this.page, this.unmatchedAs), SAMPLE_TIMEOUT_MS, null)
      : null;
    const now = Date.now();
    if (!counters) {
      // Counters are cumulative: a page that stopped answering keeps its last figures.
      const last = this.samples.at(-1);
      this.samples.push(last ? { ...last, t, joined: false, outboundKbps: 0 } : emptySample(t));
      return;
    }
    this.#noteAudio(counters);
    if (counters.openConnections > 0) {
      this.#hadConnections = true;
      this.#withoutConnection = 0;
    } else if (this.#hadConnections && ++this.#withoutConnection >= DROPPED_AFTER_SAMPLES) {
      this.fail(await droppedText(this.page));
    }
    const previous = this.#previous;
    this.#previous = { at: now, bytesSent: counters.bytesSent };
    const outboundKbps =
      previous && now > previous.at
        ? ((counters.bytesSent - previous.bytesSent) * 8) / (now - previous.at)
        : 0;
    this.samples.push({
      t,
      joined: counters.openConnections > 0,
      packetsReceived: counters.packetsReceived,
      packetsLost: counters.packetsLost,
      jitterMs: counters.jitterMs,
      rttMs: counters.rttMs,
      concealedRatio:
        counters.totalSamplesReceived > 0 ? counters.concealedSamples / counters.totalSamplesReceived : null,
      energyBySpeaker: counters.energyBySpeaker,
      outboundKbps: Math.max(0, outboundKbps),
    });
  }

  /** Leaves through the app's own button when in (so the service sees a clean leave), then closes the page. */
  async leave(): Promise<void> {
    if (this.#closed) return;
    const wasJoined = this.joined;
    this.#closed = true;
    if (wasJoined) {
      // A hidden page's button cannot be pressed: it paints again first.
      await showPage(this.page);
      await this.page
        .locator(LEAVE_BUTTON)
        .click({ timeout: 3_000 })
        .catch(() => {});
    }
    await within(this.page.close(), CLOSE_TIMEOUT_MS, undefined);
  }

  result(): ParticipantResult {
    return {
      id: this.account.id,
      name: this.account.displayName,
      role: this.role,
      browser: this.browser,
      impair: this.impair,
      joinMs: this.joinMs,
      firstAudioMs: this.firstAudioMs,
      ...(this.stageMs !== null && { stageMs: this.stageMs }),
      error: this.error,
      samples: this.samples,
      measuredImpair: null,
    };
  }
}

/** A page's own steps (hide it, show it) get this long: a busy renderer answers late. */
const PAGE_STEP_TIMEOUT_MS = 15_000;

/**
 * Stops painting and says the page is hidden, as a tab in the background would (headless pages
 * are always visible otherwise): layout and paint stop, and the app's own voice meter sleeps, as
 * its gate with the default settings (no sensitivity) sends your voice without hearing its level.
 * Audio plays and is sent on. Best effort.
 */
export async function hidePage(page: Page): Promise<void> {
  await within(
    page.evaluate(() => {
      document.documentElement.style.display = 'none';
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
      document.dispatchEvent(new Event('visibilitychange'));
    }),
    PAGE_STEP_TIMEOUT_MS,
    undefined,
  );
}

/** Paints a hidden page again, so that its buttons can be pressed (see hidePage). */
async function showPage(page: Page): Promise<void> {
  await within(
    page.evaluate(() => {
      document.documentElement.style.display = '';
    }),
    PAGE_STEP_TIMEOUT_MS,
    undefined,
  );
}

/**
 * Why a page that was connected has no connection left: the app's alert (e.g. "The room was
 * closed", "You were removed from the room"), read as text since a listener's page is hidden.
 */
async function droppedText(page: Page): Promise<string> {
  const alert = await within(
    page.evaluate(() => document.querySelector('[role="alert"]')?.textContent?.trim() ?? ''),
    SAMPLE_TIMEOUT_MS,
    '',
  );
  return alert || 'Disconnected: no peer connection left';
}

function emptySample(t: number): ParticipantSample {
  return {
    t,
    joined: false,
    packetsReceived: 0,
    packetsLost: 0,
    jitterMs: null,
    rttMs: null,
    concealedRatio: null,
    energyBySpeaker: {},
    outboundKbps: 0,
  };
}
