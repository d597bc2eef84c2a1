/**
 * The web app's pages: /login as the build prerendered it (web/build/prerender.ts), in the
 * language the request names the way the app's detection would; index.html everywhere else.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LANGUAGE_CODES } from '@voice/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestServer } from '../testing/TestServer.ts';

const webDist = mkdtempSync(path.join(tmpdir(), 'voice-web-dist-'));
writeFileSync(path.join(webDist, 'index.html'), '<html lang="en"><body>the app</body></html>');
mkdirSync(path.join(webDist, 'prerendered'));
for (const code of LANGUAGE_CODES)
  writeFileSync(
    path.join(webDist, 'prerendered', `login.${code}.html`),
    `<html lang="${code}">login ${code}</html>`,
  );

let server: TestServer;
beforeAll(async () => {
  server = await TestServer.start({ WEB_DIST: webDist });
});
afterAll(async () => {
  await server?.close();
  rmSync(webDist, { recursive: true, force: true });
});

async function page(route: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.baseUrl}${route}`, { headers });
  return { status: res.status, headers: res.headers, body: await res.text() };
}

describe('the prerendered sign-in page', () => {
  it.each([
    ['Accept-Language with a region', { 'Accept-Language': 'de-DE,de;q=0.9,en;q=0.8' }, 'de'],
    ['the most preferred supported language', { 'Accept-Language': 'zh-CN, ja;q=0.9, fr;q=0.5' }, 'ja'],
    ['no supported language', { 'Accept-Language': 'zh-CN,zh;q=0.9' }, 'en'],
    ['no Accept-Language at all', {}, 'en'],
    [
      'the i18next cookie over the header',
      { 'Accept-Language': 'de', Cookie: 'theme=dark; i18next=pt-BR' },
      'pt',
    ],
    ['an unsupported cookie: the header decides', { 'Accept-Language': 'es', Cookie: 'i18next=xx' }, 'es'],
    ['a malformed header', { 'Accept-Language': ';;;q=,,' }, 'en'],
    ['only a wildcard beside unsupported ones', { 'Accept-Language': 'zh, *;q=0.1' }, 'en'],
  ])('in the language of %s', async (_case, headers, language) => {
    const res = await page('/login', headers);
    expect(res.status).toBe(200);
    expect(res.body).toBe(`<html lang="${language}">login ${language}</html>`);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    // Caches must keep one copy per language and check it each time, like index.html.
    expect(res.headers.get('vary')).toMatch(/Accept-Language/);
    expect(res.headers.get('vary')).toMatch(/Cookie/);
    expect(res.headers.get('cache-control')).toBe('no-cache');
  });

  it('the lng query parameter comes first, as in the app', async () => {
    const res = await page('/login?lng=ru', { 'Accept-Language': 'de', Cookie: 'i18next=fr' });
    expect(res.body).toContain('lang="ru"');
  });

  it('hostile query, cookie and header values fall back to a language it has', async () => {
    for (const route of [
      '/login?lng=../../etc/passwd',
      '/login?lng=en&lng=de',
      `/login?lng=${'x'.repeat(5000)}`,
    ]) {
      const res = await page(route, { Cookie: 'i18next=%E0%A4%A', 'Accept-Language': '../../x' });
      expect(res.status, route).toBe(200);
      expect(res.body, route).toMatch(/^<html lang="(en|de)">login (en|de)<\/html>$/);
    }
  });

  it('other pages get index.html, and /login too when the build has no prerendered pages', async () => {
    expect((await page('/register', { 'Accept-Language': 'de' })).body).toContain('the app');
    expect((await page('/login/extra')).body).toContain('the app');
    const bare = mkdtempSync(path.join(tmpdir(), 'voice-web-dist-'));
    writeFileSync(path.join(bare, 'index.html'), '<html>bare app</html>');
    const old = await TestServer.start({ WEB_DIST: bare });
    try {
      const res = await fetch(`${old.baseUrl}/login`, { headers: { 'Accept-Language': 'de' } });
      expect(await res.text()).toBe('<html>bare app</html>');
    } finally {
      await old.close();
      rmSync(bare, { recursive: true, force: true });
    }
  });
});
