import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestServer } from '../testing/TestServer.ts';

let server: TestServer;
beforeAll(async () => {
  server = await TestServer.start();
});
afterAll(() => server?.close());

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
});
