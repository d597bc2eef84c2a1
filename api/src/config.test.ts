import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RedisLink } from '@voice/bus';
import { freePort, MemoryLogger } from '@voice/bus/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import webpush from 'web-push';
import { ConfigError, loadConfig } from './config.ts';
import { probeRedis } from './startup/reachable.ts';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'voice-config-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
/** A file holding `contents`, as Docker mounts a secret at /run/secrets/NAME. */
const secretFile = (contents: string) => {
  const file = path.join(tempDir(), 'secret');
  writeFileSync(file, contents);
  return file;
};
const problemsOf = (env: Record<string, string>): readonly string[] => {
  try {
    loadConfig({ DATA_DIR: tempDir(), ...env });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('loadConfig() accepted a bad environment');
};

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

describe('loadConfig() secrets from files (NAME_FILE)', () => {
  const jwtSecret = 'Zq3v8N1pXw4LbT6yHc0RmJ2sKf9GdUe7s';

  it('reads every secret from the file NAME_FILE names, trimmed', () => {
    const vapid = webpush.generateVAPIDKeys();
    const secrets = {
      JWT_SECRET: jwtSecret,
      MEDIA_SECRET: 'mD4kR9tW2xQ7vB1nL6pZ3cF8hJ0sG5yE',
      TURN_SECRET: 'tN8qP3wK6zR1mV9xC4bH7jL2sF5dG0yA',
      LOADTEST_SECRET: 'lt-secret-0123456',
      METRICS_TOKEN: 'metrics-Qw8Er2Ty6Ui4Op0As5Df7Gh3Jk',
      VAPID_PRIVATE_KEY: vapid.privateKey,
      DATABASE_URL: 'postgres://voice:pw@db:5432/voice',
      REDIS_URL: 'redis://:pw@cache:6379',
      SMTP_URL: 'smtps://mailer:pw@smtp.example.com:465',
    };
    const files = Object.fromEntries(
      Object.entries(secrets).map(([name, value]) => [`${name}_FILE`, secretFile(`  ${value}\n`)]),
    );
    const config = loadConfig({
      DATA_DIR: tempDir(),
      TURN_URLS: 'turn:turn.example.com:3478',
      VAPID_PUBLIC_KEY: vapid.publicKey,
      ...files,
    });
    expect(config).toMatchObject({
      jwtSecret: secrets.JWT_SECRET,
      mediaSecret: secrets.MEDIA_SECRET,
      turn: { secret: secrets.TURN_SECRET },
      loadtestSecret: secrets.LOADTEST_SECRET,
      metrics: { token: secrets.METRICS_TOKEN },
      vapid: { privateKey: secrets.VAPID_PRIVATE_KEY },
      databaseUrl: secrets.DATABASE_URL,
      redisUrl: secrets.REDIS_URL,
      smtpUrl: secrets.SMTP_URL,
    });
  });

  it('refuses NAME and NAME_FILE both set, an unreadable, empty or relative NAME_FILE, naming it', () => {
    const dir = tempDir();
    expect(problemsOf({ JWT_SECRET: jwtSecret, JWT_SECRET_FILE: secretFile(jwtSecret) })).toEqual([
      'JWT_SECRET, JWT_SECRET_FILE: set one, not both',
    ]);
    expect(problemsOf({ MEDIA_SECRET_FILE: path.join(dir, 'missing') })).toEqual([
      `MEDIA_SECRET_FILE: cannot read ${path.join(dir, 'missing')} (ENOENT)`,
    ]);
    expect(problemsOf({ METRICS_TOKEN_FILE: dir })).toEqual([
      `METRICS_TOKEN_FILE: cannot read ${dir} (EISDIR)`,
    ]);
    const empty = secretFile(' \n');
    expect(problemsOf({ SMTP_URL_FILE: empty })).toEqual([`SMTP_URL_FILE: ${empty} is empty`]);
    expect(problemsOf({ LOADTEST_SECRET_FILE: 'secrets/loadtest' })).toEqual([
      'LOADTEST_SECRET_FILE: must be an absolute path (got "secrets/loadtest")',
    ]);
  });

  it("checks a file's value as the variable's own, naming the variable", () => {
    expect(problemsOf({ JWT_SECRET_FILE: secretFile('short\n') })).toEqual([
      'JWT_SECRET: must be at least 32 characters',
    ]);
    expect(problemsOf({ MEDIA_SECRET_FILE: secretFile(jwtSecret), JWT_SECRET: jwtSecret })).toEqual([
      'MEDIA_SECRET: must differ from JWT_SECRET',
    ]);
    expect(problemsOf({ DATABASE_URL_FILE: secretFile('mysql://db/voice') })).toEqual([
      'DATABASE_URL: must start with postgres:// or postgresql://',
    ]);
    expect(problemsOf({ METRICS_TOKEN_FILE: secretFile('m'.repeat(40)) })[0]).toMatch(
      /^METRICS_TOKEN: too weak/,
    );
  });

  // Every character a URL's user info gives a meaning to, and `%`, which decoding would eat.
  const password = 'p@ss/w:rd%41 é#?&=';

  it('puts DATABASE_PASSWORD into DATABASE_URL, encoded so that it decodes back to itself', () => {
    for (const env of [
      { DATABASE_PASSWORD: password },
      { DATABASE_PASSWORD_FILE: secretFile(`${password}\n`) },
    ]) {
      const config = loadConfig({
        DATA_DIR: tempDir(),
        DATABASE_URL: 'postgres://voice@db:5432/voice?sslmode=require',
        ...env,
      });
      const url = new URL(config.databaseUrl as string);
      expect(decodeURIComponent(url.password)).toBe(password);
      expect(url.username).toBe('voice');
      expect(`${url.host}${url.pathname}${url.search}`).toBe('db:5432/voice?sslmode=require');
    }
  });

  it('puts REDIS_PASSWORD into REDIS_URL with an empty user, unless the URL names one', () => {
    const config = loadConfig({
      DATA_DIR: tempDir(),
      REDIS_URL: 'redis://cache:6379/2',
      REDIS_PASSWORD: password,
    });
    const url = new URL(config.redisUrl as string);
    expect(decodeURIComponent(url.password)).toBe(password);
    expect(config.redisUrl).toMatch(/^redis:\/\/:[^@]+@cache:6379\/2$/);
    const named = loadConfig({
      DATA_DIR: tempDir(),
      REDIS_URL: 'rediss://app@cache',
      REDIS_PASSWORD: 'secret',
    });
    expect(named.redisUrl).toBe('rediss://app:secret@cache');
  });

  it('refuses DATABASE_PASSWORD or REDIS_PASSWORD without its URL, or with a URL that has a password', () => {
    expect(problemsOf({ DATABASE_PASSWORD: password, REDIS_PASSWORD_FILE: secretFile(password) })).toEqual([
      'DATABASE_PASSWORD: needs DATABASE_URL',
      'REDIS_PASSWORD: needs REDIS_URL',
    ]);
    expect(problemsOf({ DATABASE_URL: 'postgres://voice:pw@db/voice', DATABASE_PASSWORD: password })).toEqual(
      ['DATABASE_PASSWORD: DATABASE_URL has a password already; set one, not both'],
    );
  });
});

describe('REDIS_PASSWORD against a real redis-server with --requirepass', () => {
  const password = 'r3d!s:p@ss/w%rd';
  let redis: ChildProcess;
  let url: string;
  beforeAll(async () => {
    const port = await freePort();
    url = `redis://127.0.0.1:${port}`;
    redis = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--requirepass',
        password,
      ],
      { stdio: 'ignore' },
    );
    // Up once it answers the right password (before that, the connection is refused).
    const withPassword = `redis://:${encodeURIComponent(password)}@127.0.0.1:${port}`;
    const deadline = Date.now() + 10_000;
    const answers = () =>
      probeRedis(withPassword).then(
        () => true,
        () => false,
      );
    while (!(await answers())) {
      if (Date.now() > deadline) throw new Error('redis-server did not start');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  afterAll(() => {
    if (redis?.pid !== undefined) process.kill(redis.pid, 'SIGKILL');
  });

  it("the URL loadConfig() builds authenticates the project's Redis clients; the bare URL does not", async () => {
    const config = loadConfig({
      DATA_DIR: tempDir(),
      REDIS_URL: url,
      REDIS_PASSWORD_FILE: secretFile(password),
    });
    const redisUrl = config.redisUrl as string;
    await expect(probeRedis(redisUrl)).resolves.toMatch(/^\d/);
    const link = await RedisLink.connect(redisUrl, new MemoryLogger());
    try {
      await link.call((client) => client.set('secret-files-test', 'ok'));
      expect(await link.call((client) => client.get('secret-files-test'))).toBe('ok');
    } finally {
      await link.close();
    }
    await expect(probeRedis(url)).rejects.toThrow(/NOAUTH/);
  });
});
