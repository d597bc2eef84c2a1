import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'voice-config-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('loadConfig()', () => {
  it('applies the documented defaults', () => {
    const dataDir = tempDir();
    const config = loadConfig({ DATA_DIR: dataDir });
    expect(config).toMatchObject({
      port: 8080,
      dataDir,
      publicUrl: 'http://localhost:8080',
      databaseUrl: null,
      redisUrl: null,
      smtpUrl: null,
      logLevel: 'info',
      trustProxy: false,
      rateLimitFactor: 1,
      dbStatementTimeoutMs: 5000,
      dbAcquireTimeoutMs: 5000,
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('generates a strong JWT secret on first start, keeps it in DATA_DIR and reuses it', () => {
    const dataDir = tempDir();
    const first = loadConfig({ DATA_DIR: dataDir });
    expect(first.jwtSecret.length).toBeGreaterThanOrEqual(64);
    const file = path.join(dataDir, 'jwt-secret');
    expect(readFileSync(file, 'utf8').trim()).toBe(first.jwtSecret);
    expect(statSync(file).mode & 0o077).toBe(0);
    expect(loadConfig({ DATA_DIR: dataDir }).jwtSecret).toBe(first.jwtSecret);
    expect(loadConfig({ DATA_DIR: tempDir() }).jwtSecret).not.toBe(first.jwtSecret);
  });

  it('takes JWT_SECRET from the environment when given', () => {
    const secret = 'Zq3v8N1pXw4LbT6yHc0RmJ2sKf9GdUe7s';
    expect(loadConfig({ DATA_DIR: tempDir(), JWT_SECRET: secret }).jwtSecret).toBe(secret);
  });

  it('refuses a JWT_SECRET that is long but not random', () => {
    expect(() => loadConfig({ DATA_DIR: tempDir(), JWT_SECRET: 'change-me'.repeat(5) })).toThrowError(
      /JWT_SECRET: too weak/,
    );
  });

  it('says what a PUBLIC_URL without scheme lacks', () => {
    expect(() => loadConfig({ DATA_DIR: tempDir(), PUBLIC_URL: 'voice.example.com' })).toThrowError(
      /PUBLIC_URL: must start with http:\/\/ or https:\/\//,
    );
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['PUBLIC_URL', 'not a url'],
    ['PUBLIC_URL', 'ftp://example.com'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['REDIS_URL', 'http://localhost:6379'],
    ['SMTP_URL', 'localhost:25'],
    ['JWT_SECRET', 'short'],
    ['LOG_LEVEL', 'loud'],
    ['TRUST_PROXY', 'maybe'],
    ['TURN_FORCE_RELAY', 'maybe'],
    ['RATE_LIMIT_FACTOR', '-1'],
    ['TURN_TTL', 'a day'],
    ['TURN_TTL', '60'],
    ['TURN_TTL', '99999999'],
    ['STUN_URLS', 'stun.example.com:3478'],
    ['STUN_URLS', 'turn:stun.example.com'],
    ['STUN_URLS', 'stun:stun.example.com:3478?transport=udp'],
    ['STUN_URLS', 'stun:a.example,,stun:b.example'],
    ['CALL_RING_TIMEOUT_MS', 'soon'],
    ['CALL_RING_TIMEOUT_MS', '0'],
    ['CALL_RING_TIMEOUT_MS', '1e9'],
    ['STARTUP_WAIT_MS', 'a minute'],
    ['DB_STATEMENT_TIMEOUT_MS', '5s'],
    ['DB_STATEMENT_TIMEOUT_MS', '0'],
    ['DB_ACQUIRE_TIMEOUT_MS', '-1'],
    ['DB_ACQUIRE_TIMEOUT_MS', '3600000'],
  ])('refuses %s=%j with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ DATA_DIR: tempDir(), [name]: value })).toThrowError(
      expect.objectContaining({ name: 'ConfigError', message: expect.stringContaining(`${name}:`) }),
    );
  });

  it('reads the database deadlines', () => {
    const config = loadConfig({
      DATA_DIR: tempDir(),
      DB_STATEMENT_TIMEOUT_MS: '1500',
      DB_ACQUIRE_TIMEOUT_MS: '800',
    });
    expect(config).toMatchObject({ dbStatementTimeoutMs: 1500, dbAcquireTimeoutMs: 800 });
  });

  it('has no TURN relay by default: STUN only, credentials valid 24 h', () => {
    const config = loadConfig({ DATA_DIR: tempDir() });
    expect(config).toMatchObject({ turn: null, turnTtlSeconds: 86_400, stunUrls: null });
  });

  it('reads TURN_SECRET, TURN_URLS, TURN_TTL and STUN_URLS into frozen values', () => {
    const secret = 'Zq3v8N1pXw4LbT6yHc0RmJ2sKf9GdUe7';
    const config = loadConfig({
      DATA_DIR: tempDir(),
      TURN_SECRET: secret,
      TURN_URLS:
        ' turn:turn.example.com?transport=udp , turns:turn.example.com:5349?transport=tcp,turn:[::1]:3478',
      TURN_TTL: '43200',
      STUN_URLS: 'stun:stun.example.com:3478,stun:203.0.113.5',
    });
    expect(config.turn).toEqual({
      secret,
      urls: [
        'turn:turn.example.com?transport=udp',
        'turns:turn.example.com:5349?transport=tcp',
        'turn:[::1]:3478',
      ],
      forceRelay: false,
    });
    expect(config.turnTtlSeconds).toBe(43_200);
    expect(config.stunUrls).toEqual(['stun:stun.example.com:3478', 'stun:203.0.113.5']);
    expect(Object.isFrozen(config.turn)).toBe(true);
    expect(Object.isFrozen(config.turn?.urls)).toBe(true);
    expect(Object.isFrozen(config.stunUrls)).toBe(true);
  });

  const turnUrls = 'turn:turn.example.com:3478';
  it.each([
    ['a short TURN_SECRET', 'TURN_SECRET', { TURN_SECRET: 'short-secret', TURN_URLS: turnUrls }],
    ['a weak TURN_SECRET', 'TURN_SECRET', { TURN_SECRET: 'change-me-'.repeat(4), TURN_URLS: turnUrls }],
    [
      'TURN_SECRET equal to JWT_SECRET',
      'TURN_SECRET',
      {
        TURN_SECRET: 'Zq3v8N1pXw4LbT6yHc0RmJ2sKf9GdUe7',
        JWT_SECRET: 'Zq3v8N1pXw4LbT6yHc0RmJ2sKf9GdUe7',
        TURN_URLS: turnUrls,
      },
    ],
    ['TURN_SECRET without TURN_URLS', 'TURN_URLS', { TURN_SECRET: 'Zq3v8N1pXw4LbT6yHc0RmJ2sKf9GdUe7' }],
    ['TURN_URLS without TURN_SECRET', 'TURN_SECRET', { TURN_URLS: turnUrls }],
    ['TURN_FORCE_RELAY without a relay', 'TURN_FORCE_RELAY', { TURN_FORCE_RELAY: 'true' }],
    ['an http: URL in TURN_URLS', 'TURN_URLS', { TURN_URLS: 'http://turn.example.com' }],
    ['a STUN URL in TURN_URLS', 'TURN_URLS', { TURN_URLS: 'stun:turn.example.com' }],
    ['a port out of range', 'TURN_URLS', { TURN_URLS: 'turn:turn.example.com:70000' }],
    ['an unknown transport', 'TURN_URLS', { TURN_URLS: 'turn:turn.example.com?transport=sctp' }],
    ['credentials in the URL', 'TURN_URLS', { TURN_URLS: 'turn:user:pass@turn.example.com' }],
    ['a bad IPv4 address', 'TURN_URLS', { TURN_URLS: 'turn:300.1.1.1:3478' }],
    ['a bad IPv6 address', 'TURN_URLS', { TURN_URLS: 'turn:[fe80::zz]:3478' }],
    ['a line break', 'TURN_URLS', { TURN_URLS: 'turn:a.example.com\nturn:b.example.com' }],
  ])('refuses %s, naming %s', (_what, name, env) => {
    expect(() => loadConfig({ DATA_DIR: tempDir(), ...env })).toThrowError(
      expect.objectContaining({ name: 'ConfigError', message: expect.stringContaining(`${name}:`) }),
    );
  });

  it('forces calls through the relay only when TURN_FORCE_RELAY says so', () => {
    const relay = {
      DATA_DIR: tempDir(),
      TURN_SECRET: 'Zq3v8N1pXw4LbT6yHc0RmJ2sKf9GdUe7',
      TURN_URLS: turnUrls,
    };
    expect(loadConfig(relay).turn?.forceRelay).toBe(false);
    expect(loadConfig({ ...relay, TURN_FORCE_RELAY: 'true' }).turn?.forceRelay).toBe(true);
    // Saying "no" is fine without a relay.
    expect(loadConfig({ DATA_DIR: tempDir(), TURN_FORCE_RELAY: 'false' }).turn).toBeNull();
  });

  it('lists each bad TURN variable once', () => {
    try {
      loadConfig({ DATA_DIR: tempDir(), TURN_SECRET: 'short', TURN_URLS: 'http://x', TURN_TTL: '1' });
      expect.unreachable();
    } catch (error) {
      expect((error as ConfigError).problems.map((problem) => problem.split(':')[0])).toEqual([
        'TURN_URLS',
        'TURN_SECRET',
        'TURN_TTL',
      ]);
    }
  });

  it("rings calls for the spec's 30 s unless CALL_RING_TIMEOUT_MS says otherwise", () => {
    expect(loadConfig({ DATA_DIR: tempDir() }).callRingTimeoutMs).toBe(30_000);
    expect(loadConfig({ DATA_DIR: tempDir(), CALL_RING_TIMEOUT_MS: '1500' }).callRingTimeoutMs).toBe(1500);
  });

  it('has no LOADTEST_SECRET unless given, and refuses one shorter than 16 characters', () => {
    expect(loadConfig({ DATA_DIR: tempDir() }).loadtestSecret).toBeNull();
    const secret = 'lt-secret-0123456';
    expect(loadConfig({ DATA_DIR: tempDir(), LOADTEST_SECRET: secret }).loadtestSecret).toBe(secret);
    expect(() => loadConfig({ DATA_DIR: tempDir(), LOADTEST_SECRET: 'short-secret' })).toThrowError(
      /LOADTEST_SECRET: must be at least 16 characters/,
    );
  });

  it('lists every bad variable at once', () => {
    try {
      loadConfig({ DATA_DIR: tempDir(), PORT: 'x', LOG_LEVEL: 'y' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems).toHaveLength(2);
    }
  });
});
