import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solid } from './avatars/testImages.ts';
import { loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { type RunningServer, startServer } from './server.ts';
import { createServices, type Services } from './services.ts';

// DATA_DIR holds the JWT secret, outbox mail with live reset links, the database and
// uploads: nothing in it may be readable by another account on the machine. This runs
// the real thing with everything embedded (PGlite, outbox mail), as `npm start` does,
// under this process's ordinary umask (main() tightens it further, but this must hold without).
let dataDir: string;
let services: Services;
let server: RunningServer;
let baseUrl: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'voice-private-'));
  // A data dir left by an older version: loose folder, a readable mail in the outbox.
  chmodSync(dataDir, 0o755);
  mkdirSync(path.join(dataDir, 'outbox'), { mode: 0o755 });
  chmodSync(path.join(dataDir, 'outbox'), 0o755);
  writeFileSync(path.join(dataDir, 'outbox', 'old.eml'), 'old mail', { mode: 0o644 });
  chmodSync(path.join(dataDir, 'outbox', 'old.eml'), 0o644);

  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    PUBLIC_URL: 'http://app.test',
    LOG_LEVEL: 'error',
    RATE_LIMIT_FACTOR: '100',
    WEB_DIST: path.join(dataDir, 'no-web-build'),
  });
  expect(config.databaseUrl).toBeNull();
  expect(config.smtpUrl).toBeNull();
  services = await createServices(config, createLogger('error', 'test'));
  server = await startServer(services, 0, '127.0.0.1');
  baseUrl = `http://127.0.0.1:${(server.http.address() as AddressInfo).port}/api`;
}, 120_000);

afterAll(async () => {
  await server?.close();
  await services?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** Every path under `root` whose permission bits are not `0700` (folders) or `0600` (files). */
function loosePaths(root: string): string[] {
  const loose: string[] = [];
  const walk = (file: string) => {
    const info = lstatSync(file);
    const mode = info.mode & 0o777;
    const expected = info.isDirectory() ? 0o700 : 0o600;
    if (mode !== expected) loose.push(`${path.relative(root, file) || '.'} ${mode.toString(8)}`);
    if (info.isDirectory()) for (const entry of readdirSync(file)) walk(path.join(file, entry));
  };
  walk(root);
  return loose;
}

async function post(route: string, body: unknown, token?: string) {
  const res = await fetch(`${baseUrl}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { token?: string } };
}

describe('DATA_DIR', () => {
  it('holds only folders 0700 and files 0600: database, JWT secret, outbox mail, avatars', async () => {
    const signUp = await post('/auth/register', {
      username: 'private_files',
      email: 'private@example.test',
      password: 'secret123',
      acceptTerms: true,
    });
    expect(signUp.status).toBe(201);

    expect((await post('/auth/forgot-password', { email: 'private@example.test' })).status).toBe(200);
    const outbox = path.join(dataDir, 'outbox');
    const deadline = Date.now() + 10_000;
    while (readdirSync(outbox).length < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(readdirSync(outbox)).toHaveLength(2);

    const form = new FormData();
    form.append('avatar', new Blob([new Uint8Array(await solid('png'))], { type: 'image/png' }), 'me.png');
    const upload = await fetch(`${baseUrl}/users/avatar`, {
      method: 'POST',
      headers: { authorization: `Bearer ${signUp.body.token ?? ''}` },
      body: form,
    });
    expect(upload.status).toBe(200);

    const entries = readdirSync(dataDir).sort();
    expect(entries).toEqual(expect.arrayContaining(['avatars', 'db', 'jwt-secret', 'outbox', 'tmp']));
    expect(readdirSync(path.join(dataDir, 'avatars'))).toHaveLength(1);
    expect(readdirSync(path.join(dataDir, 'db')).length).toBeGreaterThan(5);
    expect(loosePaths(dataDir)).toEqual([]);
  });

  it('stays so after the database has shut down', async () => {
    await server.close();
    await services.close();
    expect(loosePaths(dataDir)).toEqual([]);
  });
});
