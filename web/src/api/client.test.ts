import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, apiRequest, onUnauthorized } from './client.ts';
import { errorMessageKey } from './errorMessage.ts';

function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key) => items.get(key) ?? null,
    key: (index) => [...items.keys()][index] ?? null,
    removeItem: (key) => void items.delete(key),
    setItem: (key, value) => void items.set(key, String(value)),
  };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

describe('apiRequest', () => {
  let fetchMock: ReturnType<typeof vi.fn>;

  beforeEach(() => {
    vi.stubGlobal('localStorage', memoryStorage());
    fetchMock = vi.fn();
    vi.stubGlobal('fetch', fetchMock);
  });

  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('sends JSON to /api with the stored bearer token', async () => {
    localStorage.setItem('token', 'abc');
    fetchMock.mockResolvedValue(json(200, { available: true }));
    const result = await apiRequest('/auth/check-username', { method: 'POST', body: { username: 'bob' } });
    expect(result).toEqual({ available: true });
    const [url, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(url).toBe('/api/auth/check-username');
    expect(init.method).toBe('POST');
    expect(init.body).toBe('{"username":"bob"}');
    expect(init.headers).toMatchObject({ Authorization: 'Bearer abc', 'Content-Type': 'application/json' });
  });

  it('sends FormData as it is, leaving the multipart Content-Type to fetch', async () => {
    localStorage.setItem('token', 'abc');
    fetchMock.mockResolvedValue(json(200, { avatar_url: '/avatars/u/x.webp' }));
    const form = new FormData();
    form.append('avatar', new Blob(['png'], { type: 'image/png' }), 'me.png');
    await expect(apiRequest('/users/avatar', { method: 'POST', body: form })).resolves.toEqual({
      avatar_url: '/avatars/u/x.webp',
    });
    const [, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(init.body).toBe(form);
    expect(init.headers).not.toHaveProperty('Content-Type');
    expect(init.headers).toMatchObject({ Authorization: 'Bearer abc' });
  });

  it('omits the Authorization header without a token', async () => {
    fetchMock.mockResolvedValue(json(200, {}));
    await apiRequest('/auth/me');
    const [, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(init.headers).not.toHaveProperty('Authorization');
  });

  it('turns an error body into an ApiError with code and field', async () => {
    fetchMock.mockResolvedValue(
      json(400, { error: { code: 'VALIDATION', message: 'Validation failed', field: 'email' } }),
    );
    const error = await apiRequest('/auth/register', { method: 'POST', body: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: 'VALIDATION', field: 'email' });
    expect(errorMessageKey(error)).toBe('errors.VALIDATION');
  });

  it('returns undefined for 204', async () => {
    fetchMock.mockResolvedValue(new Response(null, { status: 204 }));
    await expect(apiRequest('/auth/logout', { method: 'POST' })).resolves.toBeUndefined();
  });

  it('rejects with the AbortError when the request is cancelled while its body arrives', async () => {
    const response = new Response('{"friends":[]}', { status: 200 });
    vi.spyOn(response, 'text').mockRejectedValue(
      new DOMException('The operation was aborted.', 'AbortError'),
    );
    fetchMock.mockResolvedValue(response);
    await expect(apiRequest('/users/friends')).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('reports an unreachable server as a network error', async () => {
    fetchMock.mockRejectedValue(new TypeError('Failed to fetch'));
    const error = await apiRequest('/auth/me').catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 0, code: null, isNetworkError: true });
    expect(errorMessageKey(error)).toBe('errors.generic.network');
  });

  it('maps bodies without a known code by status', async () => {
    fetchMock.mockResolvedValue(new Response('<html>Bad gateway</html>', { status: 502 }));
    expect(errorMessageKey(await apiRequest('/x').catch((e: unknown) => e))).toBe('errors.generic.server');
    fetchMock.mockResolvedValue(json(404, { message: 'nope' }));
    expect(errorMessageKey(await apiRequest('/x').catch((e: unknown) => e))).toBe('errors.generic.notFound');
    expect(errorMessageKey(new Error('boom'))).toBe('errors.generic.unknown');
  });

  it('clears the token and notifies listeners on any 401', async () => {
    localStorage.setItem('token', 'stale');
    const listener = vi.fn();
    const unsubscribe = onUnauthorized(listener);
    fetchMock.mockResolvedValue(json(401, { error: { code: 'UNAUTHORIZED', message: 'Unauthorized' } }));
    await expect(apiRequest('/auth/me')).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(localStorage.getItem('token')).toBeNull();
    expect(listener).toHaveBeenCalledOnce();
    unsubscribe();
  });

  it('passes cancellation through untouched', async () => {
    fetchMock.mockRejectedValue(new DOMException('aborted', 'AbortError'));
    await expect(apiRequest('/auth/me')).rejects.toMatchObject({ name: 'AbortError' });
  });
});
