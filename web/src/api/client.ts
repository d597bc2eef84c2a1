/**
 * Fetch wrapper for the REST API (SPEC section 7): base path API_BASE, JSON bodies,
 * a bearer token when one is stored, no default timeout (pass a signal to cancel).
 * Every failure becomes an ApiError; any 401 clears the token and tells the session.
 */
import { API_BASE, isErrorBody, RETRY } from '@voice/protocol';
import type { RetryPolicy } from '../lib/retry.ts';
import { clearToken, getToken } from '../session/tokenStorage.ts';

/** A failed API call. `status` is 0 when the server could not be reached. */
export class ApiError extends Error {
  readonly status: number;
  /** The server's stable error id (protocol ERRORS key), when the body carried one. */
  readonly code: string | null;
  /** The offending field of a VALIDATION error. */
  readonly field: string | null;
  /** How long the server asks to wait before trying again (Retry-After of a 429), if it said. */
  readonly retryAfterSeconds: number | null;

  constructor(
    status: number,
    code: string | null,
    message: string,
    field: string | null = null,
    retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.field = field;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  get isNetworkError(): boolean {
    return this.status === 0;
  }
}

/** Options of one request. */
export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Serialised as JSON; FormData is sent as multipart/form-data. */
  body?: unknown;
  signal?: AbortSignal;
}

type UnauthorizedListener = () => void;
const unauthorizedListeners = new Set<UnauthorizedListener>();

/** Called after any 401 answer, once the token is gone. Returns an unsubscribe function. */
export function onUnauthorized(listener: UnauthorizedListener): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  const init: RequestInit = { method: options.method ?? 'GET', headers };
  if (options.body instanceof FormData) {
    // fetch sets the multipart Content-Type with its boundary itself.
    init.body = options.body;
  } else if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(options.body);
  }
  if (options.signal) init.signal = options.signal;

  let response: Response;
  try {
    response = await fetch(`${API_BASE}${path}`, init);
  } catch (error) {
    // A cancelled request is the caller's decision, not a failure to report.
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, null, error instanceof Error ? error.message : 'Network error');
  }

  const body = await readBody(response);
  if (response.ok) return body as T;

  if (response.status === 401) {
    clearToken();
    for (const listener of unauthorizedListeners) listener();
  }
  const retryAfter = retryAfterSeconds(response.headers.get('Retry-After'));
  if (isErrorBody(body)) {
    const { code, message, field } = body.error;
    throw new ApiError(response.status, code, message, field ?? null, retryAfter);
  }
  throw new ApiError(
    response.status,
    null,
    response.statusText || `HTTP ${response.status}`,
    null,
    retryAfter,
  );
}

/** Retry-After as seconds from now: a number of seconds or an HTTP date (RFC 9110). */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | null {
  const value = header?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Number(value);
  // An HTTP date names its month; Date.parse alone would take "-5" for a year.
  const at = /[a-z]/i.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

async function readBody(response: Response): Promise<unknown> {
  if (response.status === 204) return undefined;
  const text = await response.text().catch((error: unknown) => {
    // Cancelled while the body was arriving: still the caller's decision, never an empty answer.
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    return '';
  });
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Whether `error` is a request that got no answer at all (a dropped connection). */
export function isNetworkError(error: unknown): boolean {
  return error instanceof ApiError && error.isNetworkError;
}

/**
 * Asks again (RETRY: doubling delays) a request that got no answer at all, a dropped connection:
 * the session restore and the room page's lookup. An answer, even an error, is final.
 */
export const NETWORK_RETRY: RetryPolicy = {
  retries: RETRY.attempts - 1,
  delayMs: RETRY.baseDelayMs,
  retryIf: isNetworkError,
};
