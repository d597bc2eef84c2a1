/**
 * TURN credentials for calls (SPEC section 4 "TURN credentials", 7, 8 and 9): fetched from
 * the API on demand with the stored token, kept for TURN.cacheMs, renewed by themselves
 * TURN.refreshBufferMs before they expire, cleared at logout or renewed on request.
 *
 * A caller always gets a configuration: when no credentials can be had (no token, a refusal,
 * a bad answer, no answer within TURN.requestTimeoutMs) the failure is logged and the spec's
 * STUN-only configuration comes back, with which calls still work on one machine or LAN.
 */
import { stunOnlyRtcConfiguration, TURN, WEBRTC_ROUTES } from '@voice/protocol';
import { apiRequest } from '../api/client.ts';
import { getToken } from '../session/tokenStorage.ts';

/** The parts the client uses; the defaults are the app's. */
export interface TurnCredentialsOptions {
  /**
   * GETs an API path (relative to API_BASE) and resolves with the parsed body; by default the
   * app's apiRequest (bearer token, and a 401 signs the user out as everywhere else).
   */
  request: (path: string, signal: AbortSignal) => Promise<unknown>;
  getToken: () => string | null;
  now: () => number;
  logger: Pick<Console, 'warn' | 'error'>;
}

interface Credentials {
  configuration: RTCConfiguration;
  /** When the server says they stop working (ms since the epoch). */
  expiresAt: number;
  /** When to fetch new ones. */
  refreshAt: number;
}

/** The spec's fallback: nine public STUN servers, candidate pool 10, max-bundle, rtcp-mux required. */
export function fallbackRtcConfiguration(): RTCConfiguration {
  return stunOnlyRtcConfiguration();
}

/**
 * The soonest a renewal is scheduled after a fetch: credentials the server makes very
 * short-lived (or a clock far ahead of the server's) must not turn into a stream of requests.
 */
export const MIN_RENEWAL_MS = 60_000;

/**
 * When credentials fetched at `fetchedAt` and valid until `expiresAt` should be renewed:
 * after TURN.cacheMs, and at the latest TURN.refreshBufferMs before they expire. Credentials
 * that live less than the buffer are renewed halfway instead, and never before MIN_RENEWAL_MS.
 */
export function refreshTime(fetchedAt: number, expiresAt: number): number {
  const at = Math.min(fetchedAt + TURN.cacheMs, expiresAt - TURN.refreshBufferMs);
  const renewal = at > fetchedAt ? at : fetchedAt + (expiresAt - fetchedAt) / 2;
  return Math.max(renewal, fetchedAt + MIN_RENEWAL_MS);
}

export class TurnCredentials {
  readonly #options: TurnCredentialsOptions;
  #credentials: Credentials | null = null;
  #pending: Promise<Credentials> | null = null;
  #abort: AbortController | null = null;
  #refreshTimer: ReturnType<typeof setTimeout> | null = null;
  /** Bumped by clear(): an answer to a request made before must not be kept. */
  #generation = 0;

  /** Options not given are the app's. */
  constructor(options: Partial<TurnCredentialsOptions> = {}) {
    this.#options = {
      request: (path, signal) => apiRequest<unknown>(path, { signal }),
      getToken,
      now: Date.now,
      logger: console,
      ...options,
    };
  }

  /** When the held credentials expire (ms since the epoch), or null when none are held. */
  get expiresAt(): number | null {
    return this.#credentials?.expiresAt ?? null;
  }

  /** The configuration for a new peer connection: held credentials, new ones, or STUN only. */
  async getRtcConfiguration(): Promise<RTCConfiguration> {
    const held = this.#credentials;
    if (held && this.#options.now() < held.refreshAt) return structuredClone(held.configuration);
    return this.#fetchOrFallback();
  }

  /** Fetches new credentials now, whatever is held; falls back as getRtcConfiguration does. */
  refresh(): Promise<RTCConfiguration> {
    return this.#fetchOrFallback();
  }

  /** Forgets the credentials (logout), cancels a fetch under way and the scheduled renewal. */
  clear(): void {
    this.#generation++;
    this.#credentials = null;
    this.#pending = null;
    this.#abort?.abort();
    this.#abort = null;
    this.#cancelRefresh();
  }

  async #fetchOrFallback(): Promise<RTCConfiguration> {
    try {
      return structuredClone((await this.#load()).configuration);
    } catch (error) {
      // A failed renewal leaves the credentials held usable until they expire.
      const held = this.#credentials;
      if (held && this.#options.now() < held.expiresAt) {
        this.#options.logger.warn('Could not renew the TURN credentials; using the current ones', error);
        return structuredClone(held.configuration);
      }
      this.#options.logger.error('TURN credentials unavailable, using STUN only', error);
      return fallbackRtcConfiguration();
    }
  }

  /** One fetch at a time: concurrent callers share it. */
  #load(): Promise<Credentials> {
    if (this.#pending) return this.#pending;
    const pending: Promise<Credentials> = this.#fetch().finally(() => {
      if (this.#pending === pending) this.#pending = null;
    });
    this.#pending = pending;
    return pending;
  }

  async #fetch(): Promise<Credentials> {
    if (!this.#options.getToken()) throw new Error('No authentication token available');
    const generation = this.#generation;
    const abort = new AbortController();
    this.#abort = abort;
    const timer = setTimeout(() => abort.abort(), TURN.requestTimeoutMs);
    let body: unknown;
    try {
      body = await this.#options.request(WEBRTC_ROUTES.turnCredentials, abort.signal);
    } catch (error) {
      const reason =
        abort.signal.aborted && generation === this.#generation
          ? `no answer within ${TURN.requestTimeoutMs} ms`
          : messageOf(error);
      throw new Error(`Failed to fetch credentials: ${reason}`, { cause: error });
    } finally {
      clearTimeout(timer);
      if (this.#abort === abort) this.#abort = null;
    }
    const now = this.#options.now();
    const credentials = parseCredentials(body, now);
    if (generation !== this.#generation) throw new Error('TURN credentials were cleared while being fetched');
    // Already expired by this machine's clock: used for the call that asked, not kept.
    if (credentials.expiresAt <= now) return credentials;
    this.#credentials = credentials;
    this.#scheduleRefresh(credentials.refreshAt);
    return credentials;
  }

  #scheduleRefresh(at: number): void {
    this.#cancelRefresh();
    this.#refreshTimer = setTimeout(
      () => {
        this.#refreshTimer = null;
        // Failures are logged there; the credentials held stay in use until they expire.
        void this.#fetchOrFallback();
      },
      Math.max(0, at - this.#options.now()),
    );
  }

  #cancelRefresh(): void {
    if (this.#refreshTimer !== null) clearTimeout(this.#refreshTimer);
    this.#refreshTimer = null;
  }
}

function messageOf(error: unknown): string {
  if (error instanceof Error && error.message) return error.message;
  return typeof error === 'string' && error ? error : 'unknown error';
}

/**
 * The server's answer, checked before it reaches RTCPeerConnection (which throws on a
 * malformed configuration): only the known fields are kept.
 */
function parseCredentials(body: unknown, now: number): Credentials {
  if (!isRecord(body)) throw new Error('Failed to fetch credentials: the answer is not an object');
  if (body.success !== true) throw new Error(`Failed to fetch credentials: ${serverError(body.error)}`);
  const { expiresAt, rtcConfiguration } = body;
  if (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt)) {
    throw new Error('Failed to fetch credentials: the answer has no valid expiresAt');
  }
  const configuration = parseConfiguration(rtcConfiguration);
  if (!configuration)
    throw new Error('Failed to fetch credentials: the answer has no valid rtcConfiguration');
  return { configuration, expiresAt, refreshAt: refreshTime(now, expiresAt) };
}

function serverError(error: unknown): string {
  if (typeof error === 'string' && error) return error;
  if (isRecord(error) && typeof error.message === 'string' && error.message) return error.message;
  return 'the server did not say why';
}

const TRANSPORT_POLICIES: readonly string[] = ['all', 'relay'];
const BUNDLE_POLICIES: readonly string[] = ['balanced', 'max-bundle', 'max-compat'];
const RTCP_MUX_POLICIES: readonly string[] = ['require'];
const ICE_URL = /^(stun|stuns|turn|turns):\S+$/;

function parseConfiguration(value: unknown): RTCConfiguration | null {
  if (!isRecord(value) || !Array.isArray(value.iceServers)) return null;
  const iceServers: RTCIceServer[] = [];
  for (const server of value.iceServers) {
    const parsed = parseIceServer(server);
    if (!parsed) return null;
    iceServers.push(parsed);
  }
  const configuration: RTCConfiguration = { iceServers };
  const { iceCandidatePoolSize, iceTransportPolicy, bundlePolicy, rtcpMuxPolicy } = value;
  if (iceCandidatePoolSize !== undefined) {
    if (!Number.isInteger(iceCandidatePoolSize) || (iceCandidatePoolSize as number) < 0) return null;
    configuration.iceCandidatePoolSize = iceCandidatePoolSize as number;
  }
  if (iceTransportPolicy !== undefined) {
    if (!oneOf(iceTransportPolicy, TRANSPORT_POLICIES)) return null;
    configuration.iceTransportPolicy = iceTransportPolicy as RTCIceTransportPolicy;
  }
  if (bundlePolicy !== undefined) {
    if (!oneOf(bundlePolicy, BUNDLE_POLICIES)) return null;
    configuration.bundlePolicy = bundlePolicy as RTCBundlePolicy;
  }
  if (rtcpMuxPolicy !== undefined) {
    if (!oneOf(rtcpMuxPolicy, RTCP_MUX_POLICIES)) return null;
    configuration.rtcpMuxPolicy = rtcpMuxPolicy as RTCRtcpMuxPolicy;
  }
  return configuration;
}

function parseIceServer(value: unknown): RTCIceServer | null {
  if (!isRecord(value)) return null;
  const urls = typeof value.urls === 'string' ? [value.urls] : value.urls;
  if (!Array.isArray(urls) || urls.length === 0) return null;
  if (!urls.every((url) => typeof url === 'string' && ICE_URL.test(url))) return null;
  const server: RTCIceServer = { urls: urls as string[] };
  if (value.username !== undefined) {
    if (typeof value.username !== 'string') return null;
    server.username = value.username;
  }
  if (value.credential !== undefined) {
    if (typeof value.credential !== 'string') return null;
    server.credential = value.credential;
  }
  return server;
}

function oneOf(value: unknown, allowed: readonly string[]): boolean {
  return typeof value === 'string' && allowed.includes(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
