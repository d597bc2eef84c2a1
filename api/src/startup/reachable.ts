/**
 * Is the database or Redis there? One probe each (a fresh connection, one command, closed),
 * used at start-up to wait for a service that starts slowly, and by the doctor.
 */
import pg from 'pg';
import { createClient } from 'redis';

/** How long one probe may take before it counts as a failure. */
const PROBE_TIMEOUT_MS = 5000;

/** The reason a probe failed, short enough for one line: an errno code or the first line of the message. */
export function shortReason(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown; errors?: unknown[] } | null;
  if (typeof e?.code === 'string' && /^E[A-Z]+$/.test(e.code)) return e.code;
  // Node's AggregateError (IPv4 and IPv6 both refused) carries the codes in its parts.
  const inner = Array.isArray(e?.errors) ? (e.errors[0] as { code?: unknown } | undefined) : undefined;
  if (typeof inner?.code === 'string') return inner.code;
  const message = typeof e?.message === 'string' && e.message ? e.message : String(error);
  return message.split('\n')[0] as string;
}

/** `host:port` of a service URL, without the user and password. */
export function endpointOf(url: string, defaultPort: number): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || defaultPort}`;
  } catch {
    return 'an unparsable URL';
  }
}

/**
 * True for PostgreSQL's refusals (an SQLSTATE such as 28P01, wrong password, or 3D000, no such
 * database): the server is up and will answer the same way again.
 */
export function isDatabaseRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith('57P');
}

/** Connects to PostgreSQL and runs `SHOW server_version`; resolves with the version. */
export async function probeDatabase(databaseUrl: string): Promise<string> {
  const client = new pg.Client({
    connectionString: databaseUrl,
    connectionTimeoutMillis: PROBE_TIMEOUT_MS,
    query_timeout: PROBE_TIMEOUT_MS,
  });
  // A connection dropped after the probe must not become an unhandled 'error' event.
  client.on('error', () => {});
  try {
    await client.connect();
    const result = await client.query<{ server_version: string }>('SHOW server_version');
    return result.rows[0]?.server_version ?? 'unknown';
  } finally {
    await client.end().catch(() => {});
  }
}

/** Connects to Redis and sends PING; resolves with the server's version. */
export async function probeRedis(redisUrl: string): Promise<string> {
  const client = createClient({
    url: redisUrl,
    socket: { connectTimeout: PROBE_TIMEOUT_MS, reconnectStrategy: false },
  });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    // INFO may be forbidden to this user (an ACL): the PING answered, that is what counts.
    const info = await client.info('server').catch(() => '');
    return /redis_version:(\S+)/.exec(info)?.[1] ?? '(version not shown)';
  } finally {
    if (client.isOpen) await client.quit().catch(() => {});
  }
}

/** Options of waitUntilReachable(). */
export interface WaitOptions {
  /** Gives up after this long, counted from the first attempt. */
  timeoutMs: number;
  /** Told of each failed attempt before the next one. */
  onRetry(reason: string, delayMs: number): void;
  /** A failure that waiting cannot cure (a wrong password): rejects at once. */
  isFinal?(error: unknown): boolean;
  /** First delay; doubles up to maxDelayMs. */
  firstDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * Runs `probe` until it succeeds or `timeoutMs` has passed, waiting longer after each
 * failure. Rejects with the last failure's reason.
 */
export async function waitUntilReachable<T>(probe: () => Promise<T>, options: WaitOptions): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let delay = options.firstDelayMs ?? 500;
  const maxDelay = options.maxDelayMs ?? 5000;
  for (;;) {
    try {
      return await probe();
    } catch (error) {
      const reason = shortReason(error);
      const left = deadline - Date.now();
      if (left <= 0 || options.isFinal?.(error)) throw new UnreachableError(reason);
      const wait = Math.min(delay, left);
      options.onRetry(reason, wait);
      await new Promise((resolve) => setTimeout(resolve, wait));
      delay = Math.min(delay * 2, maxDelay);
    }
  }
}

/** A service that did not answer in time; `reason` is shortReason() of the last failure. */
export class UnreachableError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'UnreachableError';
  }
}
