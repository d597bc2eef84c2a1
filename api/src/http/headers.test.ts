import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type IncomingHttpHeaders, request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { mediaAnnounceChannel } from '@voice/bus';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, TestServer, uniqueName } from '../testing/TestServer.ts';

// A stand-in for web/dist: a page, a hashed script with the build's .br/.gz copies beside
// it, and a stylesheet without copies (the server compresses that one itself).
const SCRIPT = `export const greeting = ${JSON.stringify('hello from the app '.repeat(400))};\n`;
const STYLE = 'body { color: #b5ef77; }\n'.repeat(200);
const PAGE = `<!doctype html><html><head><script type="module" src="/assets/index-abc123.js"></script></head><body>${'<div></div>'.repeat(200)}</body></html>`;
const webDist = mkdtempSync(path.join(tmpdir(), 'voice-web-dist-'));
mkdirSync(path.join(webDist, 'assets'));
writeFileSync(path.join(webDist, 'index.html'), PAGE);
writeFileSync(path.join(webDist, 'index.html.br'), brotliCompressSync(PAGE));
writeFileSync(path.join(webDist, 'assets/index-abc123.js'), SCRIPT);
writeFileSync(path.join(webDist, 'assets/index-abc123.js.br'), brotliCompressSync(SCRIPT));
writeFileSync(path.join(webDist, 'assets/index-abc123.js.gz'), gzipSync(SCRIPT));
writeFileSync(path.join(webDist, 'assets/index-def456.css'), STYLE);

let server: TestServer;
beforeAll(async () => {
  server = await TestServer.start({ WEB_DIST: webDist });
});
afterAll(async () => {
  await server?.close();
  rmSync(webDist, { recursive: true, force: true });
});

interface Raw {
  status: number;
  headers: IncomingHttpHeaders;
  /** The bytes as sent, still encoded. */
  body: Buffer;
}

/** A request that shows the bytes on the wire (fetch would decode them and hide the encoding). */
function fetchRaw(
  route: string,
  headers: Record<string, string> = {},
  method = 'GET',
  body?: string,
  base = server.baseUrl,
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${route}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function decode(res: Raw): string {
  const encoding = res.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(res.body).toString();
  if (encoding === 'gzip') return gunzipSync(res.body).toString();
  expect(encoding).toBeUndefined();
  return res.body.toString();
}

const directive = (csp: string, name: string) =>
  csp
    .split(';')
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${name} `));
const connectSrc = (csp: string) => directive(csp, 'connect-src');

describe('security headers', () => {
  it.each([
    ['an API success', 'GET', '/health'],
    ['an API error', 'GET', '/auth/me'],
    ['a validation error', 'POST', '/auth/login'],
  ])('are on %s', async (_name, method, route) => {
    const res = await server.request(method, route, method === 'POST' ? { body: {} } : {});
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });

  it('are on the web app too', async () => {
    const res = await fetch(`${server.baseUrl}/login`);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('let scripts come only from the origin, and compile WebAssembly (RNNoise) but never eval', async () => {
    const res = await server.request('GET', '/health');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(directive(csp, 'script-src')).toBe("script-src 'self' 'wasm-unsafe-eval'");
    expect(csp).not.toMatch(/'unsafe-eval'/);
  });

  it("let the page connect only to its own origin and its own app socket (PUBLIC_URL's host)", async () => {
    const res = await server.request('GET', '/health');
    expect(connectSrc(res.headers.get('content-security-policy') ?? '')).toBe(
      "connect-src 'self' ws://app.test",
    );
  });

  it('send no HSTS when PUBLIC_URL is plain http', async () => {
    const res = await server.request('GET', '/health');
    expect(res.headers.get('strict-transport-security')).toBeNull();
  });

  it('send HSTS for a year or more, and only wss: for the socket, when PUBLIC_URL is https', async () => {
    const https = await TestServer.start({ PUBLIC_URL: 'https://voice.example.org', WEB_DIST: webDist });
    try {
      for (const route of ['/api/health', '/api/auth/me', '/login', '/assets/index-abc123.js']) {
        const res = await fetchRaw(route, {}, 'GET', undefined, https.baseUrl);
        const hsts = String(res.headers['strict-transport-security']);
        expect(Number(hsts.match(/max-age=(\d+)/)?.[1]), route).toBeGreaterThanOrEqual(31_536_000);
        expect(connectSrc(String(res.headers['content-security-policy']))).toBe(
          "connect-src 'self' wss://voice.example.org",
        );
      }
    } finally {
      await https.close();
    }
  });
});

describe('the Content-Security-Policy with media servers run apart (MEDIA_SERVER=external)', () => {
  const announce = (api: TestServer, id: string, url: string, gone?: true) =>
    api.services.bus.publish(mediaAnnounceChannel, {
      id,
      url,
      load: { workers: 1, routers: 0 },
      ...(gone ? { gone } : {}),
    });
  const pageConnectSrc = async (api: TestServer) =>
    connectSrc((await fetch(`${api.baseUrl}/login`)).headers.get('content-security-policy') ?? '');

  it('lets the page connect to exactly the media servers the API has heard from, as they come and go', async () => {
    const api = await TestServer.start({ MEDIA_SERVER: 'external', WEB_DIST: webDist });
    try {
      expect(await pageConnectSrc(api)).toBe("connect-src 'self' ws://app.test");
      await announce(api, 'm-2', 'wss://media-2.example.org/rtc');
      await announce(api, 'm-1', 'ws://10.0.0.7:4443/rtc');
      await expect
        .poll(() => pageConnectSrc(api))
        .toBe("connect-src 'self' ws://app.test ws://10.0.0.7:4443 wss://media-2.example.org");
      // The API's own answers carry the same policy as the page.
      expect(
        connectSrc((await api.request('GET', '/health')).headers.get('content-security-policy') ?? ''),
      ).toBe("connect-src 'self' ws://app.test ws://10.0.0.7:4443 wss://media-2.example.org");
      // One that says goodbye is no longer allowed; a second server on an origin already named adds nothing.
      await announce(api, 'm-2', 'wss://media-2.example.org/rtc', true);
      await announce(api, 'm-3', 'ws://10.0.0.7:4443/rtc');
      await expect
        .poll(() => pageConnectSrc(api))
        .toBe("connect-src 'self' ws://app.test ws://10.0.0.7:4443");
    } finally {
      await api.close();
    }
  });

  it('keeps the embedded media server on the app origin, whatever is announced on the bus', async () => {
    await announce(server, 'stranger', 'ws://10.0.0.8:4443/rtc');
    await expect.poll(() => server.services.mediaServers.get('stranger')).not.toBeNull();
    expect(await pageConnectSrc(server)).toBe("connect-src 'self' ws://app.test");
  });
});

describe('compression and caching', () => {
  it("sends the build's brotli or gzip copy of a script, as the browser accepts, cached for a year", async () => {
    for (const [accept, encoding] of [
      ['gzip, deflate, br, zstd', 'br'],
      ['gzip', 'gzip'],
      ['identity', undefined],
      ['', undefined],
    ] as const) {
      const res = await fetchRaw('/assets/index-abc123.js', accept ? { 'accept-encoding': accept } : {});
      expect(res.status, accept).toBe(200);
      expect(res.headers['content-encoding'], accept).toBe(encoding);
      expect(res.headers['content-type']).toMatch(/javascript/);
      expect(res.headers.vary).toMatch(/accept-encoding/i);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(decode(res)).toBe(SCRIPT);
    }
  });

  it('compresses a web file the build left without copies', async () => {
    const res = await fetchRaw('/assets/index-def456.css', { 'accept-encoding': 'gzip, br' });
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.body.length).toBeLessThan(STYLE.length / 10);
    expect(decode(res)).toBe(STYLE);
  });

  it('sends index.html compressed and never cached without a check, at every app path', async () => {
    for (const route of ['/', '/login', '/dashboard', '/index.html']) {
      const res = await fetchRaw(route, { 'accept-encoding': 'br, gzip' });
      expect(res.status, route).toBe(200);
      expect(res.headers['cache-control'], route).toBe('no-cache');
      expect(res.headers['content-encoding'], route).toBe('br');
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(decode(res)).toBe(PAGE);
    }
  });

  it('answers HEAD without a body, and a missing asset with 404', async () => {
    const head = await fetchRaw('/assets/index-abc123.js', { 'accept-encoding': 'br' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect((await fetchRaw('/assets/index-000000.js', { 'accept-encoding': 'br' })).status).toBe(404);
  });

  it('compresses JSON answers of 1 KB or more, and leaves small ones alone', async () => {
    const prefix = uniqueName('zz').slice(0, 12);
    const me = await signUp(server, { username: `${prefix}_me` });
    for (let i = 0; i < 8; i += 1) await signUp(server, { username: `${prefix}_${i}` });
    const search = await fetchRaw(
      '/api/users/search',
      {
        'accept-encoding': 'gzip, deflate, br',
        authorization: `Bearer ${me.token}`,
        'content-type': 'application/json',
      },
      'POST',
      JSON.stringify({ searchTerm: prefix }),
    );
    expect(search.status).toBe(200);
    expect(search.headers['content-encoding']).toBe('br');
    expect(JSON.parse(decode(search)).users).toHaveLength(8);

    const small = await fetchRaw('/api/health', { 'accept-encoding': 'gzip, br' });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(decode(small))).toEqual({ ok: true });
  });
});
