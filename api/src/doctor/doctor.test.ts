/**
 * `npm run doctor` against a good setup (real PostgreSQL, Redis and a coturn on the shipped
 * config) and against broken ones, each of which must fail with its own ✗ line and a
 * non-zero exit code. As an operator runs it (a child process) where the exit code and the
 * output stream matter; in this process for the broken setups, which only differ in their
 * report (a child's start costs seconds on a busy machine).
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { freePort } from '@voice/bus/testing';
import knexFactory from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, migrate } from '../db/index.ts';
import { Coturn } from '../testing/Coturn.ts';
import { runDoctor } from './doctor.ts';
import { exitCodeOf, formatReport } from './report.ts';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TURN_SECRET = randomBytes(24).toString('hex');
// A short RTC range of its own, away from other tests' media servers.
const RTC_MIN_PORT = 52000 + 20 * Math.floor(Math.random() * 100);

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

let dataDir: string;
let databaseUrl: string;
let coturn: Coturn;
const admin = knexFactory({ client: 'pg', connection: DATABASE_URL, pool: { min: 0, max: 1 } });
const databases: string[] = [];

/** A fresh, migrated database of its own. */
async function freshDatabase(): Promise<string> {
  const name = `voice_doctor_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  await admin.raw(`CREATE DATABASE ${name}`);
  databases.push(name);
  const url = new URL(DATABASE_URL);
  url.pathname = `/${name}`;
  const db = createDb({ databaseUrl: url.toString(), dataDir });
  try {
    await migrate(db);
  } finally {
    await db.destroy();
  }
  return url.toString();
}

function goodEnv(): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    PUBLIC_URL: 'http://localhost:8080',
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    JWT_SECRET: randomBytes(32).toString('hex'),
    TURN_SECRET,
    TURN_URLS: coturn.turnUrls,
    MEDIA_ANNOUNCED_IP: '127.0.0.1',
    RTC_MIN_PORT: String(RTC_MIN_PORT),
    RTC_MAX_PORT: String(RTC_MIN_PORT + 19),
  };
}

/** A self-signed certificate for localhost valid `days` days, and a TLS server presenting it. */
async function tlsServer(days: number): Promise<{ server: TlsServer; port: number; certFile: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'voice-doctor-tls-'));
  const [keyFile, certFile] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      String(days),
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost',
    ],
    { stdio: 'ignore' },
  );
  const server = createTlsServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) }, (socket) =>
    socket.end(),
  );
  await new Promise<void>((resolve) => server.listen(0, resolve));
  return { server, port: (server.address() as AddressInfo).port, certFile };
}

function doctor(env: Record<string, string>): Promise<Outcome> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/src/doctor/main.ts'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** The doctor run in this process, reported as the command reports. */
async function doctorHere(env: Record<string, string>): Promise<Outcome> {
  const results = await runDoctor(env);
  return { code: exitCodeOf(results), stdout: formatReport(results), stderr: '' };
}

/** The report's line for `title`. */
function line(outcome: Outcome, title: string): string {
  return (
    outcome.stdout.split('\n').find((l) => l.slice(3).startsWith(`${title}:`)) ??
    `(no ${title} line)\n${outcome.stdout}`
  );
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'voice-doctor-'));
  coturn = await Coturn.start({ secret: TURN_SECRET });
  databaseUrl = await freshDatabase();
}, 60_000);

afterAll(async () => {
  await coturn?.stop();
  for (const name of databases) await admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.destroy();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm run doctor', { timeout: 30_000 }, () => {
  it('passes a good setup: every check ✓ or skipped, exit code 0', async () => {
    const outcome = await doctor(goodEnv());
    expect(outcome.stderr).toBe('');
    expect(outcome.code, outcome.stdout).toBe(0);
    expect(line(outcome, 'Variables')).toMatch(/^✓ {2}Variables: every variable is valid$/);
    expect(line(outcome, 'Database')).toMatch(/^✓ .*PostgreSQL \d+/);
    expect(line(outcome, 'Migrations')).toMatch(/^✓ .*current/);
    expect(line(outcome, 'Redis')).toMatch(/^✓ .*Redis \d+/);
    expect(line(outcome, 'TURN credentials')).toMatch(/^✓ .*accepted/);
    expect(line(outcome, 'TURN relay to 127.0.0.1')).toMatch(/^✓ .*refused/);
    expect(line(outcome, 'TURN relay to 169.254.169.254')).toMatch(/^✓ .*refused/);
    expect(line(outcome, 'RTC ports')).toMatch(/^✓ /);
    expect(line(outcome, 'RTC ports reachable')).toMatch(/^✓ .*arrives here/);
    // http on localhost: no certificate to look at.
    expect(line(outcome, 'Certificate')).toMatch(/^– {2}Certificate: skipped: /);
    expect(outcome.stdout).not.toContain('✗');
  });

  it('reads the secrets from files, as Docker secrets give them (JWT_SECRET_FILE, TURN_SECRET_FILE)', async () => {
    const { JWT_SECRET: jwt, TURN_SECRET: turn, ...env } = goodEnv();
    const secrets = mkdtempSync(path.join(tmpdir(), 'voice-doctor-secrets-'));
    writeFileSync(path.join(secrets, 'jwt_secret'), `${jwt}\n`);
    writeFileSync(path.join(secrets, 'turn_secret'), turn as string);
    try {
      const outcome = await doctor({
        ...env,
        JWT_SECRET_FILE: path.join(secrets, 'jwt_secret'),
        TURN_SECRET_FILE: path.join(secrets, 'turn_secret'),
      });
      expect(outcome.code, outcome.stdout).toBe(0);
      expect(line(outcome, 'JWT_SECRET')).toMatch(/^✓ .*strong \(64 characters, from .*jwt_secret\)/);
      expect(line(outcome, 'TURN credentials')).toMatch(/^✓ .*accepted/);
    } finally {
      rmSync(secrets, { recursive: true, force: true });
    }
  });

  it('fails a broken setup with exit code 1 and the fix, without a stack trace', async () => {
    const outcome = await doctor({ ...goodEnv(), REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
    expect(outcome.code, outcome.stdout).toBe(1);
    expect(line(outcome, 'Redis')).toMatch(/^✗ {2}Redis: cannot reach Redis/);
    expect(outcome.stdout).toMatch(/^ {5}fix: check that Redis is running/m);
    expect(outcome.stdout).toMatch(/Fix what is marked ✗ and run the doctor again\.\n$/);
    expect(outcome.stderr).not.toMatch(/^\s+at /m);
  });

  it('marks checks that cannot apply as skipped, not failed (embedded defaults)', async () => {
    const outcome = await doctorHere({
      DATA_DIR: dataDir,
      RTC_MIN_PORT: String(RTC_MIN_PORT),
      RTC_MAX_PORT: String(RTC_MIN_PORT + 19),
    });
    expect(outcome.code, outcome.stdout).toBe(0);
    expect(line(outcome, 'Database')).toMatch(/^– {2}Database: skipped: DATABASE_URL unset/);
    expect(line(outcome, 'Redis')).toMatch(/^– {2}Redis: skipped: REDIS_URL unset/);
    expect(line(outcome, 'TURN credentials')).toMatch(/^– {2}TURN credentials: skipped: no TURN relay/);
  });

  const broken: Array<
    [string, () => Record<string, string> | Promise<Record<string, string>>, string, RegExp]
  > = [
    ['a weak JWT_SECRET', () => ({ JWT_SECRET: 'change-me'.repeat(5) }), 'JWT_SECRET', /too weak/],
    [
      'a PUBLIC_URL without scheme',
      () => ({ PUBLIC_URL: 'voice.example.com' }),
      'PUBLIC_URL',
      /must start with http:\/\/ or https:\/\//,
    ],
    [
      'an unreachable database',
      async () => ({ DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/test` }),
      'Database',
      /cannot reach PostgreSQL at 127\.0\.0\.1:\d+ \(ECONNREFUSED\)/,
    ],
    [
      'an unreachable Redis',
      async () => ({ REDIS_URL: `redis://127.0.0.1:${await freePort()}` }),
      'Redis',
      /cannot reach Redis at 127\.0\.0\.1:\d+ \(ECONNREFUSED\)/,
    ],
    [
      'a TURN_SECRET coturn does not share',
      () => ({ TURN_SECRET: randomBytes(24).toString('hex') }),
      'TURN credentials',
      /refused the credentials .*401/,
    ],
    [
      'a private MEDIA_ANNOUNCED_IP with a public PUBLIC_URL',
      () => ({ PUBLIC_URL: 'https://voice.example.com', MEDIA_ANNOUNCED_IP: '10.0.0.5' }),
      'MEDIA_ANNOUNCED_IP',
      /10\.0\.0\.5 is a private address/,
    ],
    [
      'an unset MEDIA_ANNOUNCED_IP with a public PUBLIC_URL',
      () => ({ PUBLIC_URL: 'https://voice.example.com', MEDIA_ANNOUNCED_IP: '' }),
      'MEDIA_ANNOUNCED_IP',
      /unset while PUBLIC_URL \(voice\.example\.com\) is public/,
    ],
    [
      'a public PUBLIC_URL over http',
      () => ({ PUBLIC_URL: 'http://voice.example.com' }),
      'PUBLIC_URL',
      /is not https/,
    ],
    [
      'a database whose migrations are behind',
      async () => {
        const url = await freshDatabase();
        const db = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
        // As if this image were newer than the one that last migrated the database.
        await db('knex_migrations').where('name', '20261215090000_push_subscriptions').del();
        await db.destroy();
        return { DATABASE_URL: url };
      },
      'Migrations',
      /1 pending \(20261215090000_push_subscriptions\)/,
    ],
  ];

  it.each(broken)('fails %s with its ✗ line and exit code 1', async (_, change, title, detail) => {
    const outcome = await doctorHere({ ...goodEnv(), ...(await change()) });
    expect(outcome.code, outcome.stdout).toBe(1);
    const found = line(outcome, title);
    expect(found.startsWith(`✗  ${title}: `), found).toBe(true);
    expect(found).toMatch(detail);
    // With the fix on the next line.
    const lines = outcome.stdout.split('\n');
    expect(lines[lines.indexOf(found) + 1]).toMatch(/^ {5}fix: \S/);
  });

  describe('the certificate of an https PUBLIC_URL', () => {
    const servers: TlsServer[] = [];
    afterAll(() => {
      for (const server of servers) server.close();
    });
    const minimal = (port: number) => ({
      DATA_DIR: dataDir,
      PUBLIC_URL: `https://localhost:${port}`,
      RTC_MIN_PORT: String(RTC_MIN_PORT),
      RTC_MAX_PORT: String(RTC_MIN_PORT + 19),
    });

    it('fails one browsers would refuse', async () => {
      const { server, port } = await tlsServer(90);
      servers.push(server);
      const outcome = await doctorHere(minimal(port));
      expect(outcome.code).toBe(1);
      expect(line(outcome, 'Certificate')).toMatch(
        /^✗ {2}Certificate: localhost:\d+ presents a certificate browsers refuse \(.*SELF_SIGNED/,
      );
    });

    it('fails a trusted one that expires within 14 days, passes one with months left', async () => {
      const soon = await tlsServer(5);
      const later = await tlsServer(90);
      servers.push(soon.server, later.server);
      // The test's certificates trusted as Caddy's would be by the system's store.
      const expiring = await doctor({ ...minimal(soon.port), NODE_EXTRA_CA_CERTS: soon.certFile });
      expect(expiring.code, expiring.stdout).toBe(1);
      expect(line(expiring, 'Certificate')).toMatch(/^✗ {2}Certificate: expires in [45] days/);
      const valid = await doctor({ ...minimal(later.port), NODE_EXTRA_CA_CERTS: later.certFile });
      expect(valid.code, valid.stdout).toBe(0);
      expect(line(valid, 'Certificate')).toMatch(/^✓ {2}Certificate: valid for 8[89] more days/);
    });
  });

  it('fails a coturn that relays to loopback', { timeout: 60_000 }, async () => {
    const open = await Coturn.start({ secret: TURN_SECRET, loopbackPeers: true });
    try {
      const outcome = await doctorHere({ ...goodEnv(), TURN_URLS: open.turnUrls });
      expect(outcome.code, outcome.stdout).toBe(1);
      expect(line(outcome, 'TURN credentials')).toMatch(/^✓ /);
      expect(line(outcome, 'TURN relay to 127.0.0.1')).toMatch(/^✗ {2}TURN relay to 127\.0\.0\.1: allowed/);
    } finally {
      await open.stop();
    }
  });
});
