import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { isAbsolute } from 'node:path';
import { MediaConfigError } from './errors.ts';
import type { WorkerLogLevel } from './types.ts';

/** Where Debian's `mediasoup-worker` package (deploy/install-system-deps.sh) puts the binary. */
export const DEBIAN_WORKER_BIN = '/usr/lib/x86_64-linux-gnu/mediasoup/mediasoup-worker';

const LOG_LEVELS: readonly WorkerLogLevel[] = ['debug', 'warn', 'error', 'none'];

/** The media server's settings, parsed once from the environment and frozen. */
export interface MediaConfig {
  /** Absolute path of the mediasoup-worker binary (MEDIASOUP_WORKER_BIN). */
  readonly workerBin: string;
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
}

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

  if (problems.length > 0) throw new MediaConfigError(problems);
  return Object.freeze({
    workerBin,
    numWorkers,
    rtcMinPort,
    rtcMaxPort,
    listenIp,
    announcedIp,
    logLevel: logLevel ?? 'warn',
  });
}
