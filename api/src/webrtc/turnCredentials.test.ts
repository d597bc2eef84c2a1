import { createHmac } from 'node:crypto';
import {
  API_BASE,
  FALLBACK_STUN_SERVERS,
  type TurnCredentialsResponse,
  WEBRTC_ROUTES,
} from '@voice/protocol';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LIMITS } from '../http/RateLimiter.ts';
import { signUp, TestServer } from '../testing/TestServer.ts';

const route = WEBRTC_ROUTES.turnCredentials;
const SECRET = 'Zq3v8N1pXw4LbT6yHc0RmJ2sKf9GdUe7';
const TURN_URLS = 'turn:turn.example.test:3478?transport=udp,turns:turn.example.test:5349?transport=tcp';
const DAY_SECONDS = 24 * 60 * 60;

const hmac = (secret: string, username: string) =>
  createHmac('sha1', secret).update(username).digest('base64');
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe(`GET ${API_BASE}${route} with a TURN relay configured`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await TestServer.start({ TURN_SECRET: SECRET, TURN_URLS });
  });
  afterAll(() => server?.close());

  it('mints coturn shared-secret credentials (expiry:userId, base64 HMAC-SHA1) valid for 24 h by default', async () => {
    const { token, user } = await signUp(server);
    const before = nowSeconds();
    const res = await server.request<TurnCredentialsResponse>('GET', route, { token });
    const after = nowSeconds();
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');

    const { rtcConfiguration, expiresAt } = res.body;
    expect(res.body.success).toBe(true);
    expect(rtcConfiguration).toEqual({
      iceServers: [
        // The TURN host answers STUN too; turns: has no STUN counterpart in browsers.
        { urls: ['stun:turn.example.test:3478'] },
        {
          urls: ['turn:turn.example.test:3478?transport=udp', 'turns:turn.example.test:5349?transport=tcp'],
          username: expect.any(String),
          credential: expect.any(String),
        },
      ],
      // One relay allocation gathered ahead per TURN URL, not the fallback's ten (coturn's per-user quota).
      iceCandidatePoolSize: 1,
      iceTransportPolicy: 'all',
      bundlePolicy: 'max-bundle',
      rtcpMuxPolicy: 'require',
    });
    const turn = rtcConfiguration.iceServers[1] as { username: string; credential: string };
    const [expiry, userId] = turn.username.split(':');
    expect(userId).toBe(user.id);
    expect(Number(expiry)).toBeGreaterThanOrEqual(before + DAY_SECONDS);
    expect(Number(expiry)).toBeLessThanOrEqual(after + DAY_SECONDS);
    expect(expiresAt).toBe(Number(expiry) * 1000);
    expect(turn.credential).toBe(hmac(SECRET, turn.username));
  });

  it('gives each person their own credentials', async () => {
    const [a, b] = [await signUp(server), await signUp(server)];
    const usernameOf = async (token: string) =>
      (await server.request<TurnCredentialsResponse>('GET', route, { token })).body.rtcConfiguration
        .iceServers[1]?.username;
    expect(await usernameOf(a.token)).toMatch(new RegExp(`^\\d+:${a.user.id}$`));
    expect(await usernameOf(b.token)).toMatch(new RegExp(`^\\d+:${b.user.id}$`));
  });

  it('answers 401 UNAUTHORIZED without a token or with a bad one, and mints nothing', async () => {
    for (const token of [undefined, 'not-a-token']) {
      const res = await server.request('GET', route, { token });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Unauthorized' } });
    }
  });
});

describe('TURN_TTL and STUN_URLS', () => {
  it('keeps credentials valid for TURN_TTL seconds and adds STUN_URLS after the TURN host', async () => {
    const server = await TestServer.start({
      TURN_SECRET: SECRET,
      TURN_URLS: 'turn:[2001:db8::5]:3479',
      TURN_TTL: '7200',
      STUN_URLS: 'stun:stun.example.test:3478',
    });
    try {
      const { token } = await signUp(server);
      const before = nowSeconds();
      const { body } = await server.request<TurnCredentialsResponse>('GET', route, { token });
      const after = nowSeconds();
      expect(body.rtcConfiguration.iceServers[0]).toEqual({
        urls: ['stun:[2001:db8::5]:3479', 'stun:stun.example.test:3478'],
      });
      const expiry = Number(body.rtcConfiguration.iceServers[1]?.username?.split(':')[0]);
      expect(expiry).toBeGreaterThanOrEqual(before + 7200);
      expect(expiry).toBeLessThanOrEqual(after + 7200);
    } finally {
      await server.close();
    }
  });
});

describe('TURN_FORCE_RELAY', () => {
  it("tells browsers to use the relay only (iceTransportPolicy 'relay'), with the same servers", async () => {
    const server = await TestServer.start({ TURN_SECRET: SECRET, TURN_URLS, TURN_FORCE_RELAY: 'true' });
    try {
      const { token } = await signUp(server);
      const { body } = await server.request<TurnCredentialsResponse>('GET', route, { token });
      expect(body.rtcConfiguration).toEqual({
        iceServers: [
          { urls: ['stun:turn.example.test:3478'] },
          {
            urls: ['turn:turn.example.test:3478?transport=udp', 'turns:turn.example.test:5349?transport=tcp'],
            username: expect.any(String),
            credential: expect.any(String),
          },
        ],
        iceCandidatePoolSize: 1,
        iceTransportPolicy: 'relay',
        bundlePolicy: 'max-bundle',
        rtcpMuxPolicy: 'require',
      });
    } finally {
      await server.close();
    }
  });
});

describe('without TURN_SECRET and TURN_URLS (the embedded default)', () => {
  it("answers success with the spec's STUN-only configuration and no credentials", async () => {
    const server = await TestServer.start();
    try {
      const { token } = await signUp(server);
      const res = await server.request<TurnCredentialsResponse>('GET', route, { token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        expiresAt: expect.any(Number),
        rtcConfiguration: {
          iceServers: [{ urls: [...FALLBACK_STUN_SERVERS] }],
          iceCandidatePoolSize: 10,
          iceTransportPolicy: 'all',
          bundlePolicy: 'max-bundle',
          rtcpMuxPolicy: 'require',
        },
      });
      expect(FALLBACK_STUN_SERVERS).toHaveLength(9);
      expect(FALLBACK_STUN_SERVERS.every((url) => url.endsWith(':3478'))).toBe(true);
      // The client caches until then, and then asks again (and finds a relay added meanwhile).
      expect(res.body.expiresAt).toBeGreaterThan(Date.now() + DAY_SECONDS * 1000 - 5000);
      expect((await server.request('GET', route)).status).toBe(401);
    } finally {
      await server.close();
    }
  });

  it('uses STUN_URLS instead of the public list when given', async () => {
    const server = await TestServer.start({ STUN_URLS: 'stun:stun.lan.test, stun:192.168.1.2:3478' });
    try {
      const { token } = await signUp(server);
      const { body } = await server.request<TurnCredentialsResponse>('GET', route, { token });
      expect(body.rtcConfiguration.iceServers).toEqual([
        { urls: ['stun:stun.lan.test', 'stun:192.168.1.2:3478'] },
      ]);
    } finally {
      await server.close();
    }
  });
});

describe('rate limit', () => {
  it('answers 429 RATE_LIMITED with Retry-After past the per-person limit, and only for that person', async () => {
    const server = await TestServer.start({ RATE_LIMIT_FACTOR: '1', TURN_SECRET: SECRET, TURN_URLS });
    try {
      const { token } = await signUp(server);
      const statuses: number[] = [];
      for (let i = 0; i < LIMITS.turnCredentialsPerUser.max; i++) {
        statuses.push((await server.request('GET', route, { token })).status);
      }
      expect(statuses.every((status) => status === 200)).toBe(true);
      const blocked = await server.request('GET', route, { token });
      expect(blocked.status).toBe(429);
      expect(blocked.body).toEqual({
        error: { code: 'RATE_LIMITED', message: 'Too many requests. Please try again later.' },
      });
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      const other = await signUp(server);
      expect((await server.request('GET', route, { token: other.token })).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('the TURN secret', () => {
  it('never reaches the log, at debug level, through start-up, credentials, refusals and limits', async () => {
    const lines: string[] = [];
    const capture = (chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    };
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
    let server: TestServer | undefined;
    try {
      server = await TestServer.start({
        LOG_LEVEL: 'debug',
        RATE_LIMIT_FACTOR: '0.05',
        TURN_SECRET: SECRET,
        TURN_URLS,
      });
      const { token } = await signUp(server);
      for (let i = 0; i < 5; i++) await server.request('GET', route, { token });
      await server.request('GET', route, { token: 'bad' });
    } finally {
      out.mockRestore();
      err.mockRestore();
      await server?.close();
    }
    expect(lines.join('')).toContain(route);
    expect(lines.join('')).not.toContain(SECRET);
  });
});
