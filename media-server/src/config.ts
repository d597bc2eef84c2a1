import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { isAbsolute } from 'node:path';
import { MEDIA_DEFAULT_PORT, MEDIA_SOCKET_PATH } from '@voice/protocol';
import { MediaConfigError } from './errors.ts';
import { type MetricsConfig, metricsTokenProblems } from './processMetrics.ts';
import { secretFromEnv, urlWithPassword } from './secretFiles.ts';
import type { WorkerLogLevel } from './types.ts';

/** Where Debian's `mediasoup-worker` package (deploy/install-system-deps.sh) puts the binary. */
export const DEBIAN_WORKER_BIN = '/usr/lib/x86_64-linux-gnu/mediasoup/mediasoup-worker';

/**
 * Where `deploy/install-system-deps.sh fast-srtp` puts libsrtp2 rebuilt on OpenSSL. Debian's own
 * is built on NSS, which sets up a crypto context for every packet: about 2.8 µs a packet for
 * AES-GCM against 1 µs on OpenSSL, a third of a worker's time in a room of a thousand.
 */
export const FAST_SRTP_DIR = '/usr/local/lib/voice/srtp';
const SRTP_LIBRARY = 'libsrtp2.so.1';

const LOG_LEVELS: readonly WorkerLogLevel[] = ['debug', 'warn', 'error', 'none'];

/** The media server's settings, parsed once from the environment and frozen. */
export interface MediaConfig {
  /** Absolute path of the mediasoup-worker binary (MEDIASOUP_WORKER_BIN). */
  readonly workerBin: string;
  /**
   * A directory whose libsrtp2.so.1 the workers load before the system's (MEDIA_SRTP_LIB_DIR):
   * by default FAST_SRTP_DIR when the library is there; `system` for Debian's; null: Debian's.
   */
  readonly srtpLibDir: string | null;
  /** How many mediasoup workers to run (MEDIA_NUM_WORKERS). */
  readonly numWorkers: number;
  /** First UDP/TCP port for ICE/DTLS/RTP, shared out between the workers (RTC_MIN_PORT). */
  readonly rtcMinPort: number;
  /** Last such port, inclusive (RTC_MAX_PORT). */
  readonly rtcMaxPort: number;
  /** Address the transports bind to (MEDIA_LISTEN_IP). */
  readonly listenIp: string;
  /** Address put in ICE candidates when the listen address is not reachable as is (MEDIA_ANNOUNCED_IP). */
  readonly announcedIp: string | undefined;
  /** mediasoup-worker log level (MEDIA_LOG_LEVEL). */
  readonly logLevel: WorkerLogLevel;
  /**
   * Consumers one router of a room may hold before new members go to a router of the same room
   * on another worker (MEDIA_CONSUMER_BUDGET; bench:sfu measured about 2,500 a worker at 80%).
   */
  readonly consumerBudget: number;
  /**
   * Joined members this media server takes before the API places newcomers, to its rooms too,
   * on another one (MEDIA_MAX_MEMBERS; none by default: the consumer budget, CPU and ports say).
   */
  readonly maxMembers: number | undefined;
  /** Run as its own process: the port of its `/rtc` endpoint (MEDIA_PORT). */
  readonly port: number;
  /** Run as its own process: the address that port listens on (MEDIA_HOST). */
  readonly host: string;
  /**
   * Run as its own process: where browsers reach `/rtc`, as announced to the API
   * (MEDIA_PUBLIC_URL, ws: or wss:). By default the app's own origin when PUBLIC_URL is set (a
   * proxy in front of both sends /rtc here, as docker-compose.yml's Caddy does: wss://host/rtc),
   * else ws://MEDIA_ANNOUNCED_IP-or-127.0.0.1:MEDIA_PORT/rtc.
   */
  readonly publicUrl: string;
  /**
   * Run as its own process: the Redis the API processes use (REDIS_URL, required then), with
   * REDIS_PASSWORD as its password when set.
   */
  readonly redisUrl: string | undefined;
  /** Prefix of Redis keys and channels, the API's own (REDIS_PREFIX). */
  readonly redisPrefix: string;
  /**
   * Run as its own process: the key room tokens are signed with, shared with the API
   * (MEDIA_SECRET, required then, at least MEDIA_SECRET_MIN_LENGTH characters).
   */
  readonly secret: string | undefined;
  /** Run as its own process: where Prometheus reads its metrics (METRICS_PORT, METRICS_HOST, METRICS_TOKEN). */
  readonly metrics: MetricsConfig;
}

/** Shortest MEDIA_SECRET: 32 characters, 256 bits when random, as HS256 wants. */
export const MEDIA_SECRET_MIN_LENGTH = 32;

/** The environment variables the media server reads; nothing else in media-server reads `process.env`. */
export type MediaEnv = Readonly<Record<string, string | undefined>>;

/**
 * Reads and validates the media server settings. Every bad variable is reported at once in one
 * MediaConfigError, so an operator fixes the whole .env in one go rather than one restart per mistake.
 */
export function loadMediaConfig(env: MediaEnv = process.env): MediaConfig {
  const problems: string[] = [];
  // Empty counts as unset: docker compose passes `${VAR:-}` through as an empty string.
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === '' ? undefined : value;
  };
  // A secret may come from a file (NAME_FILE, secretFiles.ts), then is checked as when set directly.
  const secretOf = (name: string): string | undefined => secretFromEnv(env, name, problems);
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (Number.isSafeInteger(value) && value >= min && value <= max) return value;
    problems.push(`${name}: must be an integer from ${min} to ${max} (got "${raw}")`);
    return fallback;
  };
  const ip = (name: string, fallback: string | undefined): string | undefined => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    if (isIP(raw) !== 0) return raw;
    problems.push(`${name}: must be an IPv4 or IPv6 address (got "${raw}")`);
    return fallback;
  };

  const workerBin = read('MEDIASOUP_WORKER_BIN') ?? DEBIAN_WORKER_BIN;
  if (!isAbsolute(workerBin)) {
    problems.push(`MEDIASOUP_WORKER_BIN: must be an absolute path (got "${workerBin}")`);
  }

  const srtpLibDir = srtpLibrary(read('MEDIA_SRTP_LIB_DIR'), problems);

  const rtcMinPort = integer('RTC_MIN_PORT', 40000, 1, 65535);
  const rtcMaxPort = integer('RTC_MAX_PORT', 49999, 1, 65535);
  if (rtcMinPort > rtcMaxPort) {
    problems.push(`RTC_MIN_PORT, RTC_MAX_PORT: the range ${rtcMinPort}-${rtcMaxPort} is empty`);
  }
  const portCount = Math.max(1, rtcMaxPort - rtcMinPort + 1);

  // Each worker needs its own share of the port range; an unset count quietly fits the range,
  // an explicit one that cannot fit is a mistake worth reporting.
  const explicitWorkers = read('MEDIA_NUM_WORKERS') !== undefined;
  const numWorkers = explicitWorkers
    ? integer('MEDIA_NUM_WORKERS', 1, 1, 65535)
    : Math.min(availableParallelism(), portCount);
  if (explicitWorkers && numWorkers > portCount) {
    problems.push(
      `MEDIA_NUM_WORKERS: ${numWorkers} workers cannot share the ${portCount} ports of RTC_MIN_PORT-RTC_MAX_PORT`,
    );
  }

  const listenIp = ip('MEDIA_LISTEN_IP', '0.0.0.0') ?? '0.0.0.0';
  const announcedIp = ip('MEDIA_ANNOUNCED_IP', undefined);

  const rawLevel = read('MEDIA_LOG_LEVEL') ?? 'warn';
  const logLevel = LOG_LEVELS.find((level) => level === rawLevel);
  if (logLevel === undefined) {
    problems.push(`MEDIA_LOG_LEVEL: must be one of ${LOG_LEVELS.join(', ')} (got "${rawLevel}")`);
  }

  const consumerBudget = integer('MEDIA_CONSUMER_BUDGET', 2000, 1, 1_000_000);
  const maxMembers =
    read('MEDIA_MAX_MEMBERS') === undefined ? undefined : integer('MEDIA_MAX_MEMBERS', 1, 1, 1_000_000);
  const port = integer('MEDIA_PORT', MEDIA_DEFAULT_PORT, 1, 65535);
  const host = read('MEDIA_HOST') ?? '0.0.0.0';
  const appUrl = read('PUBLIC_URL');
  const behindApp = appUrl === undefined ? undefined : rtcUrlOf(appUrl);
  if (appUrl !== undefined && behindApp === undefined && read('MEDIA_PUBLIC_URL') === undefined) {
    problems.push(`PUBLIC_URL: must be an http:// or https:// URL (got "${appUrl}")`);
  }
  const defaultPublicUrl =
    behindApp ?? `ws://${urlHost(announcedIp ?? '127.0.0.1')}:${port}${MEDIA_SOCKET_PATH}`;
  const publicUrl = read('MEDIA_PUBLIC_URL') ?? defaultPublicUrl;
  if (!isRtcUrl(publicUrl)) {
    problems.push(
      `MEDIA_PUBLIC_URL: must be a ws:// or wss:// URL ending in ${MEDIA_SOCKET_PATH} (got "${publicUrl}")`,
    );
  }
  const givenRedisUrl = secretOf('REDIS_URL');
  if (givenRedisUrl !== undefined && !/^rediss?:\/\//.test(givenRedisUrl)) {
    problems.push('REDIS_URL: must be a redis:// or rediss:// URL');
  }
  const redisUrl = urlWithPassword(
    'REDIS_URL',
    givenRedisUrl,
    'REDIS_PASSWORD',
    secretOf('REDIS_PASSWORD'),
    problems,
  );
  const redisPrefix = read('REDIS_PREFIX') ?? 'voice:';
  const secret = secretOf('MEDIA_SECRET');
  if (secret !== undefined && secret.length < MEDIA_SECRET_MIN_LENGTH) {
    // The value itself stays out of the message: it ends up in logs.
    problems.push(
      `MEDIA_SECRET: must be at least ${MEDIA_SECRET_MIN_LENGTH} characters (got ${secret.length})`,
    );
  }

  const metricsPort = read('METRICS_PORT') === undefined ? null : integer('METRICS_PORT', 0, 0, 65535);
  if (metricsPort !== null && metricsPort !== 0 && metricsPort === port) {
    problems.push(`METRICS_PORT: must differ from MEDIA_PORT (${port})`);
  }
  const metricsToken = secretOf('METRICS_TOKEN') ?? null;
  if (metricsToken !== null) problems.push(...metricsTokenProblems(metricsToken));

  if (problems.length > 0) throw new MediaConfigError(problems);
  return Object.freeze({
    workerBin,
    srtpLibDir,
    numWorkers,
    rtcMinPort,
    rtcMaxPort,
    listenIp,
    announcedIp,
    logLevel: logLevel ?? 'warn',
    consumerBudget,
    maxMembers,
    port,
    host,
    publicUrl,
    redisUrl,
    redisPrefix,
    secret,
    metrics: Object.freeze({
      port: metricsPort,
      host: read('METRICS_HOST') ?? '0.0.0.0',
      token: metricsToken,
    }),
  });
}

/** An IPv6 address goes in brackets in a URL. */
function urlHost(ip: string): string {
  return ip.includes(':') ? `[${ip}]` : ip;
}

/** `/rtc` on the origin of the app's PUBLIC_URL (https: → wss:, http: → ws:); undefined if it is no such URL. */
function rtcUrlOf(appUrl: string): string | undefined {
  try {
    const url = new URL(appUrl);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
    return `${url.protocol === 'https:' ? 'wss:' : 'ws:'}//${url.host}${MEDIA_SOCKET_PATH}`;
  } catch {
    return undefined;
  }
}

function isRtcUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'ws:' || url.protocol === 'wss:') && url.pathname === MEDIA_SOCKET_PATH;
  } catch {
    return false;
  }
}

/** MEDIA_SRTP_LIB_DIR: unset, the fast build when it is installed; `system`, Debian's; else a directory holding one. */
function srtpLibrary(raw: string | undefined, problems: string[]): string | null {
  if (raw === undefined) return existsSync(`${FAST_SRTP_DIR}/${SRTP_LIBRARY}`) ? FAST_SRTP_DIR : null;
  if (raw === 'system') return null;
  if (!isAbsolute(raw) || !existsSync(`${raw}/${SRTP_LIBRARY}`)) {
    problems.push(
      `MEDIA_SRTP_LIB_DIR: must be "system" or an absolute directory holding ${SRTP_LIBRARY} (got "${raw}")`,
    );
    return null;
  }
  return raw;
}
