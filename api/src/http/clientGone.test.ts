/**
 * A browser that goes away while a file streams (a reload, a closed tab) is no error of the
 * API's: nothing is printed, and the API keeps serving.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { TestServer } from '../testing/TestServer.ts';

const webDist = mkdtempSync(path.join(tmpdir(), 'voice-web-dist-'));
mkdirSync(path.join(webDist, 'assets'));
writeFileSync(path.join(webDist, 'index.html'), '<!doctype html><title>Voice</title>');
// Large enough that the answer is still streaming when the client hangs up.
writeFileSync(path.join(webDist, 'assets/big-abc123.wasm'), Buffer.alloc(8 * 1024 * 1024, 7));

let server: TestServer;
beforeAll(async () => {
  server = await TestServer.start({ WEB_DIST: webDist });
});
afterAll(async () => {
  await server?.close();
  rmSync(webDist, { recursive: true, force: true });
});

/** GETs `route` and hangs up as soon as the first bytes of the body arrive. */
function hangUpMidway(route: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.baseUrl}${route}`, (res) => {
      res.once('data', () => {
        req.destroy();
        resolve(res.statusCode ?? 0);
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET') reject(error);
    });
    req.end();
  });
}

it('says nothing when clients hang up in the middle of a file, and serves the next one', async () => {
  const printed: string[] = [];
  const capture = (chunk: unknown) => {
    printed.push(String(chunk));
    return true;
  };
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  // Koa's own error printing goes through console.error.
  const consoleError = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    capture(args.map(String).join(' '));
  });
  try {
    for (let i = 0; i < 10; i++) expect(await hangUpMidway('/assets/big-abc123.wasm')).toBe(200);
    // Koa reports a stream's failure after the response closed: give it the time to.
    await new Promise((resolve) => setTimeout(resolve, 300));
  } finally {
    stderr.mockRestore();
    stdout.mockRestore();
    consoleError.mockRestore();
  }
  expect(
    printed.filter((line) => /Premature close|failed outside its handler|ECONNRESET/.test(line)),
  ).toEqual([]);
  const page = await fetch(`${server.baseUrl}/`);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('<title>Voice</title>');
});
