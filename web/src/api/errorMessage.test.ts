import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import i18next from 'i18next';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, apiRequest, retryAfterSeconds } from './client.ts';
import { errorMessage, errorMessageKey, formatWait } from './errorMessage.ts';

const LOCALES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../locales');
const translations = (code: string) => JSON.parse(readFileSync(path.join(LOCALES, `${code}.json`), 'utf8'));

const tooMany = (headers: Record<string, string>, body?: unknown) =>
  new Response(body === undefined ? 'Too Many Requests' : JSON.stringify(body), {
    status: 429,
    headers: { 'Content-Type': body === undefined ? 'text/plain' : 'application/json', ...headers },
  });
const RATE_LIMITED = {
  error: { code: 'RATE_LIMITED', message: 'Too many requests. Please try again later.' },
};

describe('retryAfterSeconds', () => {
  it('reads seconds and HTTP dates, and nothing else', () => {
    const now = Date.parse('2026-11-21T12:00:00Z');
    expect(retryAfterSeconds('900', now)).toBe(900);
    expect(retryAfterSeconds(' 0 ', now)).toBe(0);
    expect(retryAfterSeconds('Sat, 21 Nov 2026 12:02:00 GMT', now)).toBe(120);
    expect(retryAfterSeconds('Sat, 21 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds(null, now)).toBeNull();
    expect(retryAfterSeconds('soon', now)).toBeNull();
    expect(retryAfterSeconds('-5', now)).toBeNull();
  });
});

describe('formatWait', () => {
  it('tells the wait in the largest fitting unit, rounded up, in the language', () => {
    expect(formatWait(40, 'en')).toBe('in 40 seconds');
    expect(formatWait(61, 'en')).toBe('in 2 minutes');
    expect(formatWait(900, 'en')).toBe('in 15 minutes');
    expect(formatWait(86_400, 'en')).toBe('in 24 hours');
    expect(formatWait(0, 'en')).toBe('in 1 second');
    expect(formatWait(900, 'ru')).toBe('через 15 минут');
    expect(formatWait(900, 'de')).toBe('in 15 Minuten');
  });
});

describe('a refusal for too many attempts', () => {
  let fetchMock: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    vi.stubGlobal('localStorage', { getItem: () => null, removeItem: () => {} });
    fetchMock = vi.fn();
    vi.stubGlobal('fetch', fetchMock);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  const failure = () => apiRequest('/auth/verify-reset-token/abc').catch((error: unknown) => error);

  it('says "Too many attempts" with the wait the server asked for', async () => {
    fetchMock.mockResolvedValue(tooMany({ 'Retry-After': '900' }, RATE_LIMITED));
    const error = await failure();
    expect(error).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfterSeconds: 900 });
    expect(errorMessageKey(error)).toBe('errors.RATE_LIMITED');
    const message = errorMessage(error, 'en');
    expect(message).toEqual({ key: 'errors.rateLimitedWait', values: { wait: 'in 15 minutes' } });

    const t = await i18next.createInstance().init({
      lng: 'en',
      resources: { en: { translation: translations('en') } },
      interpolation: { escapeValue: false },
    });
    expect(t(message.key, message.values)).toBe('Too many attempts. Please try again in 15 minutes');
  });

  it('says the same for a 429 without our error body (e.g. from a proxy)', async () => {
    fetchMock.mockResolvedValue(tooMany({ 'Retry-After': '30' }));
    const error = await failure();
    expect(error).toMatchObject({ status: 429, code: null, retryAfterSeconds: 30 });
    expect(errorMessage(error, 'en')).toEqual({
      key: 'errors.rateLimitedWait',
      values: { wait: 'in 30 seconds' },
    });
  });

  it('falls back to "wait a moment" when the server did not say how long', async () => {
    fetchMock.mockResolvedValue(tooMany({}, RATE_LIMITED));
    expect(errorMessage(await failure(), 'en')).toEqual({ key: 'errors.RATE_LIMITED' });
  });

  it('leaves other failures as they were', () => {
    expect(errorMessage(new ApiError(0, null, 'Failed to fetch'), 'en')).toEqual({
      key: 'errors.generic.network',
    });
    expect(errorMessage(new ApiError(400, 'RESET_TOKEN_INVALID', 'x', 'token', 60), 'en')).toEqual({
      key: 'errors.RESET_TOKEN_INVALID',
    });
  });
});
