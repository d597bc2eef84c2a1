/** Every constant the spec names, with the spec's value (SPEC.md section 9 unless noted). */

/** Default and fallback interface language. */
export const DEFAULT_LANGUAGE = 'ru';
/** Language used when automatic detection finds nothing supported. */
export const DETECTION_FALLBACK_LANGUAGE = 'en';

/** localStorage keys. */
export const STORAGE_KEYS = {
  token: 'token',
  language: 'i18nextLng',
  theme: 'theme',
  notificationPromptShown: 'notificationPromptShown',
} as const;

/** Validation limits (spec section 5, issue 2 item 7). */
export const LIMITS = {
  usernameMin: 3,
  usernameMax: 32,
  passwordMin: 6,
  passwordMax: 128,
  displayNameMin: 2,
  displayNameMax: 50,
  emailMax: 254,
  roomNameMax: 100,
  searchMin: 2,
  searchMaxResults: 20,
  imageMaxBytes: 5 * 1024 * 1024,
  imageSize: 256,
  /** Largest JSON body the API accepts. */
  jsonBodyMaxBytes: 100 * 1024,
} as const;

/** Letters (ASCII), digits and underscore. */
export const USERNAME_PATTERN = /^[A-Za-z0-9_]+$/;

/** Generic retry helper defaults. */
export const RETRY = { attempts: 3, baseDelayMs: 1000, factor: 2 } as const;

/** Microphone retries: at most 3, delay 1 s times the attempt number. */
export const MIC_RETRY = { maxAttempts: 3, delayPerAttemptMs: 1000 } as const;

/** TURN credential cache. */
export const TURN = {
  cacheMs: 82_800_000,
  refreshBufferMs: 60 * 60 * 1000,
  requestTimeoutMs: 10_000,
} as const;

/** Call audio capture constraints. */
export const CALL_AUDIO_CONSTRAINTS = {
  channelCount: 1,
  sampleRate: 44100,
  echoCancellation: true,
  noiseSuppression: true,
  autoGainControl: true,
} as const;

/** Permission probe constraints. */
export const PROBE_AUDIO_CONSTRAINTS = {
  sampleRate: 8000,
  echoCancellation: false,
  noiseSuppression: false,
  autoGainControl: false,
} as const;

/** Alternative capture path; non-Safari browsers also get latency and sample size. */
export const ALT_AUDIO_CONSTRAINTS = {
  sampleRate: 48000,
  channelCount: 1,
  echoCancellation: true,
  noiseSuppression: true,
  autoGainControl: true,
} as const;
export const ALT_AUDIO_NON_SAFARI = { latency: 0.01, sampleSize: 16 } as const;

export const AUDIO_ANALYSER_FFT_SIZE = 256;
export const LOCAL_MONITOR_GAIN = 0.1;

/** Fallback connection config: nine public STUN servers on 3478. */
export const FALLBACK_STUN_SERVERS = [
  'stun:stun.l.google.com:3478',
  'stun:stun1.l.google.com:3478',
  'stun:stun2.l.google.com:3478',
  'stun:stun3.l.google.com:3478',
  'stun:stun4.l.google.com:3478',
  'stun:stun.cloudflare.com:3478',
  'stun:stun.nextcloud.com:3478',
  'stun:stun.stunprotocol.org:3478',
  'stun:stun.voip.blackberry.com:3478',
] as const;
export const FALLBACK_RTC_CONFIG = {
  iceCandidatePoolSize: 10,
  iceTransportPolicy: 'all',
  bundlePolicy: 'max-bundle',
  rtcpMuxPolicy: 'require',
} as const;

/** App socket reconnection. */
export const SOCKET = {
  reconnectDelayMs: 1000,
  /** The spec gives the first and the largest delay only; doubling in between is the usual curve. */
  reconnectFactor: 2,
  reconnectDelayMaxMs: 5000,
  randomizationFactor: 0.5,
  reconnectAttempts: Number.POSITIVE_INFINITY,
  connectTimeoutMs: 20_000,
} as const;

/**
 * App sockets one person may hold at once (issue 7 item 4): opening one more closes their
 * oldest, with a `socket-closing` reason `too-many-sockets` first.
 */
export const SOCKETS_PER_USER_MAX = 10;

/** Requests per second, and the burst, that all of one person's sockets share. */
export const SOCKET_REQUEST_BUDGET = { ratePerSecond: 10, burst: 20 } as const;

/**
 * Call timers. A dropped peer connection shows "disconnected" for `disconnectWaitMs`, then
 * "reconnecting" while an ICE restart runs, and "failed" (the call ends) when it has not
 * come back within `iceRestartTimeoutMs`.
 */
export const CALL_TIMERS = {
  disconnectWaitMs: 5000,
  endReconnectWaitMs: 30_000,
  cleanupDelayMs: 1000,
  iceRestartTimeoutMs: 15_000,
} as const;

/**
 * Group rooms in the browser: a transport that lost its path restarts ICE at once; when it has
 * not come back (or a new one has not connected) within this long, the page joins the room again.
 */
export const ROOM_TIMERS = {
  transportDeadlineMs: 10_000,
  /**
   * How long a page gives the media server for each step of letting it in (open `/rtc`, each
   * transport, the join, the producer) before it says "Failed to connect to room" rather than
   * "Joining…" for ever: one that stops answering fails, one that answers slowly gets there.
   */
  connectDeadlineMs: 10_000,
} as const;

/** Notification setup. */
export const NOTIFICATIONS = {
  initDelayMs: 200,
  pushDelayMs: 100,
  setupTimeoutMs: 3000,
  autoCloseMs: 15_000,
  callVibration: [200, 100, 200, 100, 200],
} as const;

export const SOUND = { ringtoneVolume: 0.8, defaultVolume: 0.7 } as const;

/** Translation resource loading. */
export const I18N_LOAD = { retries: 5, retryDelayMs: 350, maxParallelReads: 10 } as const;

export const CHUNK_LOAD_TIMEOUT_MS = 120_000;

export const THEMES = ['dark', 'light'] as const;
export type Theme = (typeof THEMES)[number];
export const DEFAULT_THEME: Theme = 'dark';

/** True when `value` is one of THEMES. */
export function isTheme(value: unknown): value is Theme {
  return typeof value === 'string' && (THEMES as readonly string[]).includes(value);
}

/** Base path of every REST call. */
export const API_BASE = '/api';

/** Password reset tokens live this long. */
export const RESET_TOKEN_TTL_MS = 60 * 60 * 1000;
/** Session JWTs live this long. */
export const SESSION_TTL_SECONDS = 30 * 24 * 60 * 60;
