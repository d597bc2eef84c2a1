/**
 * Which failures mean the database could not serve a request in time, rather than that the
 * request or the code is wrong: a statement past its deadline, no free connection in the pool or
 * on the server, a server that refuses, restarts or went away. Each ended with nothing changed
 * (PostgreSQL rolls back the statement and its transaction), so the answer is 503 and a retry.
 */

// SQLSTATEs: 57014 query_canceled (statement_timeout), 55P03 lock_not_available (lock_timeout,
// NOWAIT), 53300 too_many_connections, 53000 insufficient_resources, 57P01-57P03 admin shutdown,
// crash shutdown, cannot connect now (starting or stopping), class 08 connection exceptions.
const SQLSTATES = new Set([
  '57014',
  '55P03',
  '53300',
  '53000',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);

// Node's socket errors while connecting to, or talking with, the server.
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

// node-postgres says these in words only: its own client-side deadlines (query_timeout,
// connectionTimeoutMillis) and a connection the server closed.
const PG_CLIENT_MESSAGES = [
  'Query read timeout',
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
];

interface MaybeDbError {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  cause?: unknown;
}

/** True when `error` says the database did not answer in time or took no more connections. */
export function databaseUnavailable(error: unknown): boolean {
  // Some callers wrap what they caught; one level of `cause` is as deep as ours go.
  for (const candidate of [error, (error as MaybeDbError | null)?.cause]) {
    if (typeof candidate !== 'object' || candidate === null) continue;
    const { name, code, message } = candidate as MaybeDbError;
    // knex's: no free connection within acquireConnectionTimeout (or a query's own .timeout()).
    if (name === 'KnexTimeoutError') return true;
    if (typeof code === 'string' && (SQLSTATES.has(code) || SOCKET_CODES.has(code))) return true;
    if (typeof message === 'string' && PG_CLIENT_MESSAGES.some((text) => message.includes(text))) {
      return true;
    }
  }
  return false;
}
