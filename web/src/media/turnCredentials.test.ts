/**
 * The TURN client against a scripted fetch: the app's own apiRequest and token storage run
 * unchanged (fetch and localStorage are the stand-ins), timers and the clock are faked.
 */
import { FALLBACK_STUN_SERVERS, TURN } from '@voice/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fallbackRtcConfiguration, MIN_RENEWAL_MS, refreshTime, TurnCredentials } from './turnCredentials.ts';

const HOUR = 60 * 60 * 1000;
const T0 = Date.UTC(2025, 0, 1, 12, 0, 0);

/** A TURN answer as the API gives it, valid for `ttlMs` from now. */
function credentialsBody(ttlMs = 24 * HOUR, user = 'u1') {
  const expiresAt = Date.now() + ttlMs;
  return {
    success: true,
    expiresAt,
    rtcConfiguration: {
      iceServers: [
        { urls: ['stun:turn.example.test:3478'] },
        {
          urls: ['turn:turn.example.test:3478?transport=udp', 'turns:turn.example.test:5349'],
          username: `${Math.floor(expiresAt / 1000)}:${user}`,
          credential: 'c2VjcmV0',
        },
      ],
      iceCandidatePoolSize: 10,
      iceTransportPolicy: 'all',
      bundlePolicy: 'max-bundle',
      rtcpMuxPolicy: 'require',
    },
  };
}

type LogFn = (...args: unknown[]) => void;
type Log = ReturnType<typeof vi.fn<LogFn>>;

type Reply = (init: RequestInit) => Promise<Response>;

const json =
  (status: number, body: unknown): Reply =>
  async () =>
    new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

/** Never answers; rejects like fetch when its request is aborted. */
const silence: Reply = (init) =>
  new Promise((_resolve, reject) => {
    init.signal?.addEventListener('abort', () =>
      reject(new DOMException('The operation was aborted.', 'AbortError')),
    );
  });

describe('TurnCredentials', () => {
  let replies: Reply[];
  let requests: { url: string; init: RequestInit }[];
  let storage: Map<string, string>;
  let logger: { warn: Log; error: Log };

  function createClient() {
    return new TurnCredentials({ logger });
  }

  /** The next fetch answers with `reply`; unscripted fetches answer fresh 24 h credentials. */
  function answer(...next: Reply[]) {
    replies.push(...next);
  }

  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(T0);
    replies = [];
    requests = [];
    storage = new Map([['token', 'jwt-1']]);
    logger = { warn: vi.fn<LogFn>(), error: vi.fn<LogFn>() };
    vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
      requests.push({ url, init });
      const reply = replies.shift() ?? json(200, credentialsBody());
      return reply(init);
    });
    vi.stubGlobal('localStorage', {
      getItem: (key: string) => storage.get(key) ?? null,
      setItem: (key: string, value: string) => storage.set(key, value),
      removeItem: (key: string) => storage.delete(key),
    });
  });

  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('fetches GET /api/webrtc/turn-credentials with the stored token and gives the configuration', async () => {
    const body = credentialsBody();
    answer(json(200, body));
    const client = createClient();
    const configuration = await client.getRtcConfiguration();

    expect(requests).toHaveLength(1);
    expect(requests[0]?.url).toBe('/api/webrtc/turn-credentials');
    expect(requests[0]?.init.method).toBe('GET');
    expect(requests[0]?.init.headers).toMatchObject({ Authorization: 'Bearer jwt-1' });
    expect(configuration).toEqual(body.rtcConfiguration);
    expect(client.expiresAt).toBe(body.expiresAt);
    expect(logger.error).not.toHaveBeenCalled();
  });

  it('keeps the credentials for 23 hours and hands out copies', async () => {
    const client = createClient();
    const first = await client.getRtcConfiguration();
    first.iceTransportPolicy = 'relay';
    first.iceServers?.pop();

    await vi.advanceTimersByTimeAsync(TURN.cacheMs - 1);
    const again = await client.getRtcConfiguration();
    expect(requests).toHaveLength(1);
    expect(again.iceTransportPolicy).toBe('all');
    expect(again.iceServers).toHaveLength(2);
  });

  it('shares one request between concurrent callers', async () => {
    const client = createClient();
    const [a, b, c] = await Promise.all([
      client.getRtcConfiguration(),
      client.getRtcConfiguration(),
      client.refresh(),
    ]);
    expect(requests).toHaveLength(1);
    expect(a).toEqual(b);
    expect(b).toEqual(c);
  });

  it('renews by itself at 23 hours, one hour before 24-hour credentials expire', async () => {
    const client = createClient();
    await client.getRtcConfiguration();
    await vi.advanceTimersByTimeAsync(23 * HOUR - 1);
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(requests).toHaveLength(2);
    // And again 23 hours after that.
    await vi.advanceTimersByTimeAsync(23 * HOUR);
    expect(requests).toHaveLength(3);
    expect(client.expiresAt).toBe(Date.now() + 24 * HOUR);
  });

  it('renews one hour before expiry when the credentials live less than the cache time', async () => {
    answer(json(200, credentialsBody(3 * HOUR)));
    const client = createClient();
    await client.getRtcConfiguration();
    await vi.advanceTimersByTimeAsync(2 * HOUR - 1);
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(requests).toHaveLength(2);
  });

  it.each([
    ['24 h', 24 * HOUR, TURN.cacheMs],
    ['3 h', 3 * HOUR, 2 * HOUR],
    ['40 min (shorter than the buffer: halfway)', 40 * 60_000, 20 * 60_000],
    ['10 s (never sooner than a minute)', 10_000, MIN_RENEWAL_MS],
  ])('refreshTime for credentials valid %s', (_name, ttl, after) => {
    expect(refreshTime(T0, T0 + ttl)).toBe(T0 + after);
  });

  it('does not turn very short-lived credentials into a stream of requests', async () => {
    const client = createClient();
    answer(...Array.from({ length: 20 }, () => json(200, credentialsBody(10_000))));
    await client.getRtcConfiguration();
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(requests.length).toBeLessThanOrEqual(11);
  });

  it('fetches again when asked to, even with fresh credentials held', async () => {
    const client = createClient();
    await client.getRtcConfiguration();
    answer(json(200, credentialsBody(24 * HOUR, 'u2')));
    const renewed = await client.refresh();
    expect(requests).toHaveLength(2);
    expect(renewed.iceServers?.[1]?.username).toMatch(/:u2$/);
    expect((await client.getRtcConfiguration()).iceServers?.[1]?.username).toMatch(/:u2$/);
  });

  it('forgets everything on clear: no renewal, the next call fetches', async () => {
    const client = createClient();
    await client.getRtcConfiguration();
    client.clear();
    expect(client.expiresAt).toBeNull();
    await vi.advanceTimersByTimeAsync(24 * HOUR);
    expect(requests).toHaveLength(1);
    await client.getRtcConfiguration();
    expect(requests).toHaveLength(2);
  });

  it('cancels a fetch under way on clear and keeps nothing from it', async () => {
    answer(silence);
    const client = createClient();
    const pending = client.getRtcConfiguration();
    await vi.advanceTimersByTimeAsync(0);
    expect(requests[0]?.init.signal?.aborted).toBe(false);
    client.clear();
    expect(requests[0]?.init.signal?.aborted).toBe(true);
    await expect(pending).resolves.toEqual(fallbackRtcConfiguration());
    expect(client.expiresAt).toBeNull();
  });

  it("fails with 'No authentication token available' without a token, asking nothing", async () => {
    storage.clear();
    const client = createClient();
    await expect(client.getRtcConfiguration()).resolves.toEqual(fallbackRtcConfiguration());
    expect(requests).toEqual([]);
    expect(logger.error).toHaveBeenCalledWith(
      'TURN credentials unavailable, using STUN only',
      expect.objectContaining({ message: 'No authentication token available' }),
    );
  });

  it.each([
    [
      'success false with a reason',
      json(200, { success: false, error: 'TURN is disabled' }),
      'TURN is disabled',
    ],
    [
      'an error answer',
      json(500, { error: { code: 'INTERNAL', message: 'Something went wrong on the server' } }),
      'Something went wrong on the server',
    ],
    [
      'a rate-limit refusal',
      json(429, { error: { code: 'RATE_LIMITED', message: 'Too many requests' } }),
      'Too many requests',
    ],
    ['success false without a reason', json(200, { success: false }), 'the server did not say why'],
  ])(
    "logs 'Failed to fetch credentials' with the server's error on %s, and falls back",
    async (_n, reply, why) => {
      answer(reply);
      const client = createClient();
      await expect(client.getRtcConfiguration()).resolves.toEqual(fallbackRtcConfiguration());
      expect(logger.error).toHaveBeenCalledWith(
        'TURN credentials unavailable, using STUN only',
        expect.objectContaining({ message: `Failed to fetch credentials: ${why}` }),
      );
      // Nothing was kept: the next call asks again.
      await client.getRtcConfiguration();
      expect(requests).toHaveLength(2);
    },
  );

  it('signs out on a 401, as every API call does', async () => {
    answer(json(401, { error: { code: 'UNAUTHORIZED', message: 'Your session has expired' } }));
    const client = createClient();
    await expect(client.getRtcConfiguration()).resolves.toEqual(fallbackRtcConfiguration());
    expect(storage.has('token')).toBe(false);
  });

  it('gives up after 10 s without an answer', async () => {
    answer(silence);
    const client = createClient();
    let settled: RTCConfiguration | null = null;
    void client.getRtcConfiguration().then((configuration) => {
      settled = configuration;
    });
    await vi.advanceTimersByTimeAsync(TURN.requestTimeoutMs - 1);
    expect(settled).toBeNull();
    expect(requests[0]?.init.signal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(requests[0]?.init.signal?.aborted).toBe(true);
    expect(settled).toEqual(fallbackRtcConfiguration());
    expect(logger.error).toHaveBeenCalledWith(
      'TURN credentials unavailable, using STUN only',
      expect.objectContaining({ message: 'Failed to fetch credentials: no answer within 10000 ms' }),
    );
  });

  it.each([
    ['not JSON', async () => new Response('<html>', { status: 200 })],
    ['no expiresAt', json(200, { ...credentialsBody(), expiresAt: 'tomorrow' })],
    ['no configuration', json(200, { success: true, expiresAt: T0 + HOUR })],
    [
      'iceServers not a list',
      json(200, { ...credentialsBody(), rtcConfiguration: { iceServers: 'stun:x' } }),
    ],
    [
      'a URL of another scheme',
      json(200, {
        ...credentialsBody(),
        rtcConfiguration: { iceServers: [{ urls: ['javascript:alert(1)'] }] },
      }),
    ],
    [
      'a credential not a string',
      json(200, {
        ...credentialsBody(),
        rtcConfiguration: { iceServers: [{ urls: 'turn:x:3478', username: 'a', credential: { x: 1 } }] },
      }),
    ],
    [
      'an unknown transport policy',
      json(200, { ...credentialsBody(), rtcConfiguration: { iceServers: [], iceTransportPolicy: 'none' } }),
    ],
    ['an array', json(200, [1, 2])],
  ] as const)('refuses an answer with %s and falls back', async (_name, reply) => {
    answer(reply);
    const client = createClient();
    await expect(client.getRtcConfiguration()).resolves.toEqual(fallbackRtcConfiguration());
    expect(logger.error).toHaveBeenCalledWith(
      'TURN credentials unavailable, using STUN only',
      expect.objectContaining({ message: expect.stringMatching(/^Failed to fetch credentials: /) }),
    );
    expect(client.expiresAt).toBeNull();
  });

  it('keeps only the fields a peer connection takes', async () => {
    const body = credentialsBody();
    answer(
      json(200, {
        ...body,
        rtcConfiguration: {
          ...body.rtcConfiguration,
          certificates: ['x'],
          iceServers: [{ urls: 'stun:s.test:3478', extra: true }],
        },
      }),
    );
    const configuration = await createClient().getRtcConfiguration();
    expect(configuration).toEqual({ ...body.rtcConfiguration, iceServers: [{ urls: ['stun:s.test:3478'] }] });
  });

  it('keeps using the current credentials when a renewal fails, until they expire', async () => {
    const client = createClient();
    const first = await client.getRtcConfiguration();
    answer(json(503, { error: { code: 'INTERNAL', message: 'down' } }));
    await vi.advanceTimersByTimeAsync(23 * HOUR);
    expect(requests).toHaveLength(2);
    expect(logger.warn).toHaveBeenCalled();

    answer(json(503, { error: { code: 'INTERNAL', message: 'down' } }));
    await expect(client.getRtcConfiguration()).resolves.toEqual(first);
    expect(requests).toHaveLength(3);

    await vi.advanceTimersByTimeAsync(HOUR);
    answer(json(503, { error: { code: 'INTERNAL', message: 'down' } }));
    await expect(client.getRtcConfiguration()).resolves.toEqual(fallbackRtcConfiguration());
    expect(logger.error).toHaveBeenCalledTimes(1);
  });

  it('uses credentials already expired by this clock once, without keeping them', async () => {
    answer(json(200, { ...credentialsBody(), expiresAt: T0 - HOUR }));
    const client = createClient();
    const configuration = await client.getRtcConfiguration();
    expect(configuration.iceServers).toHaveLength(2);
    expect(client.expiresAt).toBeNull();
    await vi.advanceTimersByTimeAsync(HOUR);
    expect(requests).toHaveLength(1);
  });

  it("falls back to the spec's STUN-only configuration", () => {
    const fallback = fallbackRtcConfiguration();
    const urls = (fallback.iceServers ?? []).flatMap((server) => server.urls);
    expect(urls).toEqual([...FALLBACK_STUN_SERVERS]);
    expect(urls).toHaveLength(9);
    for (const url of urls) expect(url).toMatch(/^stun:[a-z0-9.-]+:3478$/);
    expect(fallback).toMatchObject({
      iceCandidatePoolSize: 10,
      iceTransportPolicy: 'all',
      bundlePolicy: 'max-bundle',
      rtcpMuxPolicy: 'require',
    });
    // A fresh object each time: a caller that changes it changes only its own.
    expect(fallbackRtcConfiguration()).not.toBe(fallback);
  });
});
