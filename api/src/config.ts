/**
 * The API's configuration: read from the environment once, validated, frozen.
 * Nothing else in the API reads process.env.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type MetricsConfig,
  metricsTokenProblems,
  secretFromEnv,
  urlWithPassword,
} from '@voice/media-server';
import { CALL_RING_TIMEOUT_MS, CALL_TIMERS, LOADTEST_LIMITS, TURN } from '@voice/protocol';
import { parseVapid, type VapidConfig } from './notifications/vapidKeys.ts';
import { PRIVATE_FILE_MODE, privateDirSync } from './privateFiles.ts';
import { type IceScheme, iceUrlListSchema } from './webrtc/schema.ts';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Validated settings of one API process. */
export interface Config {
  port: number;
  host: string;
  /** Where the embedded database, the JWT secret, uploads and the mail outbox live. */
  dataDir: string;
  /** Origin used in links sent by mail, without a trailing slash. */
  publicUrl: string;
  /** PostgreSQL URL, with DATABASE_PASSWORD in it when set; null means the embedded database in dataDir. */
  databaseUrl: string | null;
  /** Redis URL, with REDIS_PASSWORD in it when set; null means the in-process bus and memory stores. */
  redisUrl: string | null;
  /** Prefix of every Redis key and channel, so several deployments can share one Redis. */
  redisPrefix: string;
  /** SMTP URL; null means mail is written to dataDir/outbox. */
  smtpUrl: string | null;
  mailFrom: string;
  jwtSecret: string;
  /** MEDIA_SECRET: signs room tokens for media servers; null: derived from jwtSecret (roomToken.ts). */
  mediaSecret: string | null;
  logLevel: LogLevel;
  /** Trust X-Forwarded-For (behind a reverse proxy). */
  trustProxy: boolean;
  /** Multiplies every rate limit (load tests raise it). */
  rateLimitFactor: number;
  /** The built web app served at /. */
  webDist: string;
  /** How long a user whose last tab closed still counts as online. */
  presenceDisconnectWaitMs: number;
  /** How long a call rings before it ends with `timeout`; the spec's 30 s unless a test shortens it. */
  callRingTimeoutMs: number;
  /** `embedded`: run the media server's workers in this process tree; `external`: separate media servers. */
  mediaServer: 'embedded' | 'external';
  /** The TURN relay browsers are sent to (TURN_SECRET and TURN_URLS); null: STUN only. */
  turn: Readonly<TurnConfig> | null;
  /** How long minted TURN credentials stay valid, in seconds. */
  turnTtlSeconds: number;
  /** STUN servers for browsers; null: the TURN host, or the spec's fallback list without TURN. */
  stunUrls: readonly string[] | null;
  /** The keys that sign web pushes (VAPID_*), or the pair generated in dataDir. */
  vapid: Readonly<VapidConfig>;
  /**
   * PUSH_ALLOWED_HOSTS, for tests only: `host:port` push services let through although
   * loopback or private, over http too. Empty in any real deployment.
   */
  pushAllowedHosts: readonly string[];
  /** Where Prometheus reads this process's metrics (METRICS_PORT, METRICS_HOST, METRICS_TOKEN). */
  metrics: MetricsConfig;
  /** STARTUP_WAIT_MS: how long start-up waits for a database or Redis that is not up yet. */
  startupWaitMs: number;
  /** DB_STATEMENT_TIMEOUT_MS: the longest one query may run (lock waits included) before its request answers 503. */
  dbStatementTimeoutMs: number;
  /** DB_ACQUIRE_TIMEOUT_MS: the longest a request waits for a free database connection before it answers 503. */
  dbAcquireTimeoutMs: number;
  /**
   * LOADTEST_SECRET: opens /api/loadtest (seeding and removing test accounts) to whoever sends
   * it; null (the default, and what production should keep): those routes do not exist.
   */
  loadtestSecret: string | null;
}

/** coturn's shared-secret scheme (`use-auth-secret`): the API signs what coturn checks. */
export interface TurnConfig {
  /** coturn's `static-auth-secret`. */
  secret: string;
  /** turn:/turns: URLs handed to browsers. */
  urls: readonly string[];
  /**
   * TURN_FORCE_RELAY: browsers send every call through the relay (`iceTransportPolicy: 'relay'`),
   * so people never learn each other's addresses; costs the relay's bandwidth and a little latency.
   */
  forceRelay: boolean;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const MIN_SECRET_LENGTH = 32;
// A secret of few distinct characters ("aaaa…", "change-me-change-me…") is a placeholder.
const MIN_SECRET_DISTINCT_CHARS = 10;
const DEFAULT_TURN_TTL_SECONDS = 24 * 60 * 60;
// Browsers refresh credentials TURN.refreshBufferMs before they expire: a shorter life
// would have them refresh all the time. Longer than a week, a leaked one lives too long.
const MIN_TURN_TTL_SECONDS = (2 * TURN.refreshBufferMs) / 1000;
const MAX_TURN_TTL_SECONDS = 7 * 24 * 60 * 60;
// A database or Redis started by the same `docker compose up` is usually ready well within this.
const DEFAULT_STARTUP_WAIT_MS = 60_000;
// A request the database cannot serve within this answers 503 rather than hold its client (and a
// connection) for as long as a lock or an overload lasts.
const DEFAULT_DB_DEADLINE_MS = 5000;
const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/** Parses the environment; throws a ConfigError listing every bad variable. */
export function loadConfig(env: Env = process.env): Readonly<Config> {
  const problems: string[] = [];
  const value = (name: string): string | null => {
    const raw = env[name]?.trim();
    return raw ? raw : null;
  };
  // A secret may come from a file (NAME_FILE, secretFiles.ts), then is checked as when set directly.
  const secretOf = (name: string): string | null => secretFromEnv(env, name, problems) ?? null;

  const port = parseInteger('PORT', value('PORT') ?? '8080', 0, 65535, problems);
  const dataDir = path.resolve(value('DATA_DIR') ?? path.join(REPO_ROOT, 'data'));
  const publicUrl = parseUrl(
    'PUBLIC_URL',
    value('PUBLIC_URL') ?? `http://localhost:${port}`,
    ['http:', 'https:'],
    problems,
  );
  const databaseUrl = urlWithPassword(
    'DATABASE_URL',
    optionalUrl('DATABASE_URL', secretOf('DATABASE_URL'), ['postgres:', 'postgresql:'], problems),
    'DATABASE_PASSWORD',
    secretOf('DATABASE_PASSWORD'),
    problems,
  );
  const redisUrl = urlWithPassword(
    'REDIS_URL',
    optionalUrl('REDIS_URL', secretOf('REDIS_URL'), ['redis:', 'rediss:'], problems),
    'REDIS_PASSWORD',
    secretOf('REDIS_PASSWORD'),
    problems,
  );
  const smtpUrl = optionalUrl('SMTP_URL', secretOf('SMTP_URL'), ['smtp:', 'smtps:'], problems);
  const mailFrom = value('MAIL_FROM') ?? `Voice <noreply@${hostOf(publicUrl)}>`;
  if (!/^[^\n\r]*@[^\n\r]*$/.test(mailFrom)) problems.push('MAIL_FROM: must contain an email address');

  const logLevel = (value('LOG_LEVEL') ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL: must be one of ${LOG_LEVELS.join(', ')}`);

  const trustProxy = parseBoolean('TRUST_PROXY', value('TRUST_PROXY') ?? 'false', problems);
  const rateLimitFactor = parseNumber('RATE_LIMIT_FACTOR', value('RATE_LIMIT_FACTOR') ?? '1', problems);
  const presenceDisconnectWaitMs = parseInteger(
    'PRESENCE_DISCONNECT_WAIT_MS',
    value('PRESENCE_DISCONNECT_WAIT_MS') ?? String(CALL_TIMERS.disconnectWaitMs),
    0,
    600_000,
    problems,
  );
  const callRingTimeoutMs = parseInteger(
    'CALL_RING_TIMEOUT_MS',
    value('CALL_RING_TIMEOUT_MS') ?? String(CALL_RING_TIMEOUT_MS),
    100,
    10 * 60_000,
    problems,
  );
  const mediaServer = value('MEDIA_SERVER') ?? 'embedded';
  if (mediaServer !== 'embedded' && mediaServer !== 'external') {
    problems.push(`MEDIA_SERVER: must be embedded or external, got "${mediaServer}"`);
  }
  const webDist = path.resolve(value('WEB_DIST') ?? path.join(REPO_ROOT, 'web', 'dist'));

  const secret = secretOf('JWT_SECRET');
  if (secret !== null && secret.length < MIN_SECRET_LENGTH) {
    problems.push(`JWT_SECRET: must be at least ${MIN_SECRET_LENGTH} characters`);
  } else if (secret !== null && new Set(secret).size < MIN_SECRET_DISTINCT_CHARS) {
    problems.push('JWT_SECRET: too weak; use a random value (e.g. `openssl rand -hex 32`)');
  }

  const mediaSecret = secretOf('MEDIA_SECRET');
  if (mediaSecret !== null) {
    if (mediaSecret.length < MIN_SECRET_LENGTH) {
      problems.push(`MEDIA_SECRET: must be at least ${MIN_SECRET_LENGTH} characters`);
    } else if (new Set(mediaSecret).size < MIN_SECRET_DISTINCT_CHARS) {
      problems.push('MEDIA_SECRET: too weak; use a random value (e.g. `openssl rand -hex 32`)');
    } else if (mediaSecret === secret) {
      // Media servers hold this one: it must not also sign sessions.
      problems.push('MEDIA_SECRET: must differ from JWT_SECRET');
    }
  }

  const turn = parseTurn(
    secretOf('TURN_SECRET'),
    value('TURN_URLS'),
    parseBoolean('TURN_FORCE_RELAY', value('TURN_FORCE_RELAY') ?? 'false', problems),
    secret,
    problems,
  );
  const turnTtlSeconds = parseInteger(
    'TURN_TTL',
    value('TURN_TTL') ?? String(DEFAULT_TURN_TTL_SECONDS),
    MIN_TURN_TTL_SECONDS,
    MAX_TURN_TTL_SECONDS,
    problems,
  );
  const stunUrls = parseIceUrls('STUN_URLS', value('STUN_URLS'), ['stun', 'stuns'], problems);
  const startupWaitMs = parseInteger(
    'STARTUP_WAIT_MS',
    value('STARTUP_WAIT_MS') ?? String(DEFAULT_STARTUP_WAIT_MS),
    0,
    600_000,
    problems,
  );
  const dbStatementTimeoutMs = parseInteger(
    'DB_STATEMENT_TIMEOUT_MS',
    value('DB_STATEMENT_TIMEOUT_MS') ?? String(DEFAULT_DB_DEADLINE_MS),
    100,
    600_000,
    problems,
  );
  const dbAcquireTimeoutMs = parseInteger(
    'DB_ACQUIRE_TIMEOUT_MS',
    value('DB_ACQUIRE_TIMEOUT_MS') ?? String(DEFAULT_DB_DEADLINE_MS),
    100,
    600_000,
    problems,
  );
  const metrics = parseMetrics(
    value('METRICS_PORT'),
    value('METRICS_HOST'),
    secretOf('METRICS_TOKEN'),
    port,
    problems,
  );
  const loadtestSecret = secretOf('LOADTEST_SECRET');
  if (loadtestSecret !== null && loadtestSecret.length < LOADTEST_LIMITS.secretMin) {
    problems.push(
      `LOADTEST_SECRET: must be at least ${LOADTEST_LIMITS.secretMin} characters (or unset, outside a load-test window)`,
    );
  }
  const pushAllowedHosts = parseHostList('PUSH_ALLOWED_HOSTS', value('PUSH_ALLOWED_HOSTS'), problems);
  const vapid = parseVapid(
    {
      publicKey: value('VAPID_PUBLIC_KEY'),
      privateKey: secretOf('VAPID_PRIVATE_KEY'),
      subject: value('VAPID_SUBJECT'),
    },
    { dataDir, mailFrom, publicUrl: publicUrl.replace(/\/+$/, '') },
    problems,
  );

  if (problems.length > 0 || vapid === null) throw new ConfigError(problems);

  return Object.freeze({
    port,
    host: value('HOST') ?? '0.0.0.0',
    dataDir,
    publicUrl: publicUrl.replace(/\/+$/, ''),
    databaseUrl,
    redisUrl,
    redisPrefix: value('REDIS_PREFIX') ?? 'voice:',
    smtpUrl,
    mailFrom,
    jwtSecret: secret ?? persistentSecret(dataDir),
    mediaSecret,
    logLevel,
    trustProxy,
    rateLimitFactor,
    webDist,
    presenceDisconnectWaitMs,
    callRingTimeoutMs,
    mediaServer: mediaServer as Config['mediaServer'],
    turn,
    turnTtlSeconds,
    stunUrls,
    vapid,
    pushAllowedHosts,
    metrics,
    startupWaitMs,
    dbStatementTimeoutMs,
    dbAcquireTimeoutMs,
    loadtestSecret,
  });
}

/** A comma-separated list of `host:port` (a v6 address in brackets), lowercased and frozen. */
function parseHostList(name: string, raw: string | null, problems: string[]): readonly string[] {
  if (raw === null) return Object.freeze([]);
  const hosts = raw.split(',').map((entry) => entry.trim().toLowerCase());
  const bad = hosts.find((host) => !/^([a-z0-9.-]+|\[[0-9a-f:.]+\]):\d{1,5}$/.test(host));
  if (bad !== undefined) problems.push(`${name}: each entry must be host:port, got "${bad}"`);
  return Object.freeze(hosts);
}

/** METRICS_PORT (its own listener, never the app's port) and METRICS_TOKEN (on the app's port); both optional. */
function parseMetrics(
  rawPort: string | null,
  host: string | null,
  token: string | null,
  appPort: number,
  problems: string[],
): MetricsConfig {
  const port = rawPort === null ? null : parseInteger('METRICS_PORT', rawPort, 0, 65535, problems);
  if (port !== null && port !== 0 && port === appPort) {
    problems.push(`METRICS_PORT: must differ from PORT (${appPort}); METRICS_TOKEN serves /metrics on PORT`);
  }
  if (token !== null) problems.push(...metricsTokenProblems(token));
  return Object.freeze({ port, host: host ?? '0.0.0.0', token });
}

/** A strong secret generated on first start and kept in dataDir, so sessions survive restarts. */
function persistentSecret(dataDir: string): string {
  const file = path.join(dataDir, 'jwt-secret');
  try {
    const stored = readFileSync(file, 'utf8').trim();
    if (stored.length >= MIN_SECRET_LENGTH) return stored;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  privateDirSync(dataDir);
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: PRIVATE_FILE_MODE, flag: 'w' });
  return secret;
}

/** TURN_SECRET and TURN_URLS: both or neither; TURN_FORCE_RELAY only with both. */
function parseTurn(
  secret: string | null,
  rawUrls: string | null,
  forceRelay: boolean,
  jwtSecret: string | null,
  problems: string[],
): Readonly<TurnConfig> | null {
  const urls = parseIceUrls('TURN_URLS', rawUrls, ['turn', 'turns'], problems);
  if (secret === null) {
    if (rawUrls !== null)
      problems.push('TURN_SECRET: must be set when TURN_URLS is set (the secret coturn checks)');
    // Without a relay, the browsers would gather no candidate at all and no call could connect.
    else if (forceRelay)
      problems.push('TURN_FORCE_RELAY: needs TURN_SECRET and TURN_URLS (the relay calls are forced through)');
    return null;
  }
  if (secret.length < MIN_SECRET_LENGTH) {
    problems.push(`TURN_SECRET: must be at least ${MIN_SECRET_LENGTH} characters`);
  } else if (new Set(secret).size < MIN_SECRET_DISTINCT_CHARS) {
    problems.push('TURN_SECRET: too weak; use a random value (e.g. `openssl rand -hex 32`)');
  } else if (secret === jwtSecret) {
    // coturn's host holds this one: it must not also sign sessions.
    problems.push('TURN_SECRET: must differ from JWT_SECRET');
  }
  if (rawUrls === null)
    problems.push('TURN_URLS: must be set when TURN_SECRET is set (where browsers reach coturn)');
  return urls ? Object.freeze({ secret, urls, forceRelay }) : null;
}

/** A comma-separated list of ICE server URLs, frozen, or null when unset. */
function parseIceUrls(
  name: string,
  raw: string | null,
  schemes: readonly IceScheme[],
  problems: string[],
): readonly string[] | null {
  if (raw === null) return null;
  const result = iceUrlListSchema(schemes).safeParse(raw);
  if (!result.success) {
    problems.push(`${name}: ${result.error.issues[0]?.message ?? 'not a list of URLs'}`);
    return null;
  }
  return Object.freeze(result.data.map((url) => url.href));
}

function parseInteger(name: string, raw: string, min: number, max: number, problems: string[]): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isInteger(n) || n < min || n > max) {
    problems.push(`${name}: must be a whole number from ${min} to ${max}, got "${raw}"`);
    return min;
  }
  return n;
}

function parseNumber(name: string, raw: string, problems: string[]): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) {
    problems.push(`${name}: must be a positive number, got "${raw}"`);
    return 1;
  }
  return n;
}

function parseBoolean(name: string, raw: string, problems: string[]): boolean {
  if (['1', 'true', 'yes'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no'].includes(raw.toLowerCase())) return false;
  problems.push(`${name}: must be true or false, got "${raw}"`);
  return false;
}

function parseUrl(name: string, raw: string, protocols: string[], problems: string[]): string {
  try {
    const url = new URL(raw);
    if (!protocols.includes(url.protocol)) {
      problems.push(`${name}: must start with ${protocols.map((p) => `${p}//`).join(' or ')}`);
    }
    return raw;
  } catch {
    // "voice.example.com": the usual slip. The value stays out of the message (it may hold a password).
    const schemeless = !/^[a-z][a-z0-9+.-]*:/i.test(raw);
    problems.push(
      schemeless
        ? `${name}: must start with ${protocols.map((p) => `${p}//`).join(' or ')}`
        : `${name}: not a valid URL`,
    );
    return raw;
  }
}

function optionalUrl(
  name: string,
  raw: string | null,
  protocols: string[],
  problems: string[],
): string | null {
  return raw === null ? null : parseUrl(name, raw, protocols, problems);
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return 'localhost';
  }
}
