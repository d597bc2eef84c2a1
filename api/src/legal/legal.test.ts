import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LANGUAGE_CODES, LEGAL_DOCUMENTS, LEGAL_TEXT_MAX_BYTES } from '@voice/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TestServer } from '../testing/TestServer.ts';

let server: TestServer;
let legalDir: string;
beforeAll(async () => {
  server = await TestServer.start();
  legalDir = path.join(server.dataDir, 'legal');
});
afterEach(() => rmSync(legalDir, { recursive: true, force: true }));
afterAll(() => server?.close());

const get = (route: string) => server.request('GET', route);
const operatorFile = (name: string, text: string | Buffer) => {
  mkdirSync(legalDir, { recursive: true });
  writeFileSync(path.join(legalDir, name), text);
};

describe('GET /legal/terms and /legal/privacy', () => {
  it('answers the default text of every document in every language, without a session', async () => {
    const seen = new Set<string>();
    for (const document of LEGAL_DOCUMENTS) {
      for (const language of LANGUAGE_CODES) {
        const res = await get(`/legal/${document}?lang=${language}`);
        expect(res.status, `${document} ${language}`).toBe(200);
        expect(res.body).toMatchObject({ document, language, source: 'default' });
        expect(res.body.text).toMatch(/^# \S/);
        seen.add(res.body.text);
      }
    }
    // Sixteen different texts: none is missing or copied from another language.
    expect(seen.size).toBe(LEGAL_DOCUMENTS.length * LANGUAGE_CODES.length);
    const privacy = (await get('/legal/privacy?lang=en')).body.text;
    for (const kept of ['username', 'friends', 'picture', 'Call records', 'operator', 'no analytics']) {
      expect(privacy).toContain(kept);
    }
  });

  it('defaults to ru without lang', async () => {
    const res = await get('/legal/terms');
    expect(res.body).toMatchObject({ language: 'ru', source: 'default' });
    expect(res.body.text).toContain('Условия использования');
  });

  it.each(['xx', 'EN', 'en-US', '', 'en&lang=fr'])('refuses lang=%s with 400 VALIDATION', async (lang) => {
    const res = await get(`/legal/terms?lang=${lang}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION', field: 'lang' });
  });

  it('answers 404 for any other document', async () => {
    for (const route of ['/legal/cookies', '/legal/..%2Fjwt-secret', '/legal/terms.en.md', '/legal']) {
      expect((await get(route)).status, route).toBe(404);
    }
  });
});

describe("the operator's own text", () => {
  it('replaces the default: one file for every language, or one per language', async () => {
    operatorFile('terms.md', '# Our terms\n\nBe nice.\n');
    operatorFile('terms.de.md', '# Unsere Bedingungen\n');
    expect((await get('/legal/terms?lang=en')).body).toEqual({
      document: 'terms',
      language: 'en',
      text: '# Our terms\n\nBe nice.\n',
      source: 'operator',
    });
    expect((await get('/legal/terms?lang=de')).body.text).toBe('# Unsere Bedingungen\n');
    // The other document keeps its default.
    expect((await get('/legal/privacy?lang=en')).body.source).toBe('default');
  });

  it('is read again on every request, so a replaced file needs no restart', async () => {
    operatorFile('privacy.md', 'first');
    expect((await get('/legal/privacy?lang=fr')).body.text).toBe('first');
    operatorFile('privacy.md', 'second');
    expect((await get('/legal/privacy?lang=fr')).body.text).toBe('second');
    rmSync(path.join(legalDir, 'privacy.md'));
    expect((await get('/legal/privacy?lang=fr')).body.source).toBe('default');
  });

  it('is served as text, markup and all (the web shows it as text), minus control characters', async () => {
    operatorFile('terms.md', '<script>alert(1)</script>\u0000 [x](javascript:alert(1))\u0007\n');
    expect((await get('/legal/terms?lang=en')).body.text).toBe(
      '<script>alert(1)</script> [x](javascript:alert(1))\n',
    );
  });

  it('is skipped when too large or not a file, for the next one', async () => {
    operatorFile('terms.en.md', Buffer.alloc(LEGAL_TEXT_MAX_BYTES + 1, 'a'));
    operatorFile('terms.md', 'general');
    expect((await get('/legal/terms?lang=en')).body.text).toBe('general');
    mkdirSync(path.join(legalDir, 'privacy.md'));
    expect((await get('/legal/privacy?lang=en')).body.source).toBe('default');
  });
});
