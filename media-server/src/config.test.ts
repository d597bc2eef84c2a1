import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEBIAN_WORKER_BIN, FAST_SRTP_DIR, loadMediaConfig } from './config.ts';
import { MediaConfigError } from './errors.ts';

function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    loadMediaConfig(env);
  } catch (error) {
    if (error instanceof MediaConfigError) return error.problems;
    throw error;
  }
  throw new Error('loadMediaConfig() accepted a bad environment');
}

/** A directory holding a libsrtp2.so.1, as MEDIA_SRTP_LIB_DIR names one. */
const srtpDir = mkdtempSync(path.join(tmpdir(), 'srtp-'));
writeFileSync(path.join(srtpDir, 'libsrtp2.so.1'), '');
afterAll(() => rmSync(srtpDir, { recursive: true, force: true }));

describe('loadMediaConfig()', () => {
  it('loadMediaConfig() gives the defaults for an empty environment', () => {
    expect(loadMediaConfig({})).toEqual({
      workerBin: DEBIAN_WORKER_BIN,
      // The OpenSSL build when `install-system-deps.sh fast-srtp` put it there, else Debian's.
      srtpLibDir: existsSync(`${FAST_SRTP_DIR}/libsrtp2.so.1`) ? FAST_SRTP_DIR : null,
      numWorkers: availableParallelism(),
      rtcMinPort: 40000,
      rtcMaxPort: 49999,
      listenIp: '0.0.0.0',
      announcedIp: undefined,
      logLevel: 'warn',
      consumerBudget: 2000,
      port: 4443,
      host: '0.0.0.0',
      publicUrl: 'ws://127.0.0.1:4443/rtc',
      redisUrl: undefined,
      redisPrefix: 'voice:',
      secret: undefined,
      metrics: { port: null, host: '0.0.0.0', token: null },
    });
  });

  it('loadMediaConfig() reads every variable', () => {
    const config = loadMediaConfig({
      MEDIASOUP_WORKER_BIN: '/opt/mediasoup-worker',
      MEDIA_SRTP_LIB_DIR: srtpDir,
      MEDIA_NUM_WORKERS: '3',
      RTC_MIN_PORT: '41000',
      RTC_MAX_PORT: '41099',
      MEDIA_LISTEN_IP: '10.0.0.5',
      MEDIA_ANNOUNCED_IP: '203.0.113.7',
      MEDIA_LOG_LEVEL: 'debug',
      MEDIA_CONSUMER_BUDGET: '500',
      MEDIA_MAX_MEMBERS: '300',
      MEDIA_PORT: '5443',
      MEDIA_HOST: '127.0.0.1',
      REDIS_URL: 'redis://cache:6379',
      REDIS_PREFIX: 'v2:',
      MEDIA_SECRET: 's'.repeat(32),
      METRICS_PORT: '9465',
      METRICS_HOST: '10.0.0.5',
      METRICS_TOKEN: 'metrics-Qw8Er2Ty6Ui4Op0As5Df7Gh3Jk',
    });
    expect(config).toEqual({
      workerBin: '/opt/mediasoup-worker',
      srtpLibDir: srtpDir,
      numWorkers: 3,
      rtcMinPort: 41000,
      rtcMaxPort: 41099,
      listenIp: '10.0.0.5',
      announcedIp: '203.0.113.7',
      logLevel: 'debug',
      consumerBudget: 500,
      maxMembers: 300,
      port: 5443,
      host: '127.0.0.1',
      // Announced from MEDIA_ANNOUNCED_IP and MEDIA_PORT unless MEDIA_PUBLIC_URL says otherwise.
      publicUrl: 'ws://203.0.113.7:5443/rtc',
      redisUrl: 'redis://cache:6379',
      redisPrefix: 'v2:',
      secret: 's'.repeat(32),
      metrics: { port: 9465, host: '10.0.0.5', token: 'metrics-Qw8Er2Ty6Ui4Op0As5Df7Gh3Jk' },
    });
    expect(loadMediaConfig({ MEDIA_PUBLIC_URL: 'wss://media.example.com/rtc' }).publicUrl).toBe(
      'wss://media.example.com/rtc',
    );
  });

  it("loadMediaConfig() announces /rtc on the app's origin when PUBLIC_URL is set (a proxy in front of both)", () => {
    expect(loadMediaConfig({ PUBLIC_URL: 'https://voice.example.com' }).publicUrl).toBe(
      'wss://voice.example.com/rtc',
    );
    expect(loadMediaConfig({ PUBLIC_URL: 'https://localhost:8443/app/' }).publicUrl).toBe(
      'wss://localhost:8443/rtc',
    );
    expect(loadMediaConfig({ PUBLIC_URL: 'http://10.0.0.5:8080' }).publicUrl).toBe('ws://10.0.0.5:8080/rtc');
    // MEDIA_PUBLIC_URL still wins: a media server on a host of its own.
    expect(
      loadMediaConfig({
        PUBLIC_URL: 'https://voice.example.com',
        MEDIA_PUBLIC_URL: 'wss://m1.example.com/rtc',
      }).publicUrl,
    ).toBe('wss://m1.example.com/rtc');
    expect(problemsOf({ PUBLIC_URL: 'voice.example.com' })).toEqual([
      'PUBLIC_URL: must be an http:// or https:// URL (got "voice.example.com")',
    ]);
  });

  it('loadMediaConfig() names a bad MEDIA_PUBLIC_URL, MEDIA_PORT, REDIS_URL or MEDIA_SECRET', () => {
    expect(problemsOf({ MEDIA_PUBLIC_URL: 'https://media.example.com/rtc' })[0]).toMatch(
      /^MEDIA_PUBLIC_URL: /,
    );
    expect(problemsOf({ MEDIA_PUBLIC_URL: 'wss://media.example.com/ws' })[0]).toMatch(/^MEDIA_PUBLIC_URL: /);
    expect(problemsOf({ MEDIA_PORT: '0' })[0]).toMatch(/^MEDIA_PORT: /);
    expect(problemsOf({ REDIS_URL: 'http://cache' })[0]).toMatch(/^REDIS_URL: /);
    // A short secret is named without being echoed.
    expect(problemsOf({ MEDIA_SECRET: 'short-secret' })).toEqual([
      'MEDIA_SECRET: must be at least 32 characters (got 12)',
    ]);
  });

  it('loadMediaConfig() takes no member cap by default, and names a bad MEDIA_MAX_MEMBERS', () => {
    expect(loadMediaConfig({}).maxMembers).toBeUndefined();
    expect(loadMediaConfig({ MEDIA_MAX_MEMBERS: '' }).maxMembers).toBeUndefined();
    expect(problemsOf({ MEDIA_MAX_MEMBERS: '0' })).toEqual([
      'MEDIA_MAX_MEMBERS: must be an integer from 1 to 1000000 (got "0")',
    ]);
    expect(problemsOf({ MEDIA_MAX_MEMBERS: 'many' })[0]).toMatch(/^MEDIA_MAX_MEMBERS: /);
  });

  it("loadMediaConfig() takes MEDIA_SRTP_LIB_DIR 'system' for Debian's libsrtp2, and names a directory without one", () => {
    expect(loadMediaConfig({ MEDIA_SRTP_LIB_DIR: 'system' }).srtpLibDir).toBeNull();
    const problem = (raw: string) =>
      `MEDIA_SRTP_LIB_DIR: must be "system" or an absolute directory holding libsrtp2.so.1 (got "${raw}")`;
    expect(problemsOf({ MEDIA_SRTP_LIB_DIR: 'lib/srtp' })).toEqual([problem('lib/srtp')]);
    expect(problemsOf({ MEDIA_SRTP_LIB_DIR: tmpdir() })).toEqual([problem(tmpdir())]);
  });

  it('loadMediaConfig() returns a frozen object', () => {
    expect(Object.isFrozen(loadMediaConfig({}))).toBe(true);
  });

  it('loadMediaConfig() treats empty values as unset', () => {
    const config = loadMediaConfig({ MEDIA_ANNOUNCED_IP: '', MEDIA_NUM_WORKERS: ' ', RTC_MIN_PORT: '' });
    expect(config.announcedIp).toBeUndefined();
    expect(config.rtcMinPort).toBe(40000);
  });

  it('loadMediaConfig() names the variable of a bad port', () => {
    expect(problemsOf({ RTC_MIN_PORT: 'forty' })).toEqual([
      'RTC_MIN_PORT: must be an integer from 1 to 65535 (got "forty")',
    ]);
    expect(problemsOf({ RTC_MAX_PORT: '70000' })[0]).toMatch(/^RTC_MAX_PORT: /);
    expect(problemsOf({ RTC_MAX_PORT: '4e4' })[0]).toMatch(/^RTC_MAX_PORT: /);
  });

  it('loadMediaConfig() rejects an empty port range', () => {
    expect(problemsOf({ RTC_MIN_PORT: '45000', RTC_MAX_PORT: '44999' })).toEqual([
      'RTC_MIN_PORT, RTC_MAX_PORT: the range 45000-44999 is empty',
    ]);
  });

  it('loadMediaConfig() rejects more workers than ports, but fits the default count to the range', () => {
    expect(problemsOf({ MEDIA_NUM_WORKERS: '5', RTC_MIN_PORT: '40000', RTC_MAX_PORT: '40003' })[0]).toMatch(
      /^MEDIA_NUM_WORKERS: 5 workers cannot share the 4 ports/,
    );
    expect(loadMediaConfig({ RTC_MIN_PORT: '40000', RTC_MAX_PORT: '40000' }).numWorkers).toBe(1);
  });

  it('loadMediaConfig() rejects a worker count that is not a positive integer', () => {
    expect(problemsOf({ MEDIA_NUM_WORKERS: '0' })[0]).toMatch(/^MEDIA_NUM_WORKERS: /);
    expect(problemsOf({ MEDIA_NUM_WORKERS: '1.5' })[0]).toMatch(/^MEDIA_NUM_WORKERS: /);
  });

  it('loadMediaConfig() names a bad address, log level and worker path', () => {
    expect(problemsOf({ MEDIA_LISTEN_IP: 'localhost' })[0]).toMatch(/^MEDIA_LISTEN_IP: /);
    expect(problemsOf({ MEDIA_ANNOUNCED_IP: 'example.com' })[0]).toMatch(/^MEDIA_ANNOUNCED_IP: /);
    expect(problemsOf({ MEDIA_LOG_LEVEL: 'verbose' })[0]).toMatch(/^MEDIA_LOG_LEVEL: /);
    expect(problemsOf({ MEDIASOUP_WORKER_BIN: 'mediasoup-worker' })[0]).toMatch(/^MEDIASOUP_WORKER_BIN: /);
  });

  it('loadMediaConfig() reports every bad variable at once', () => {
    const problems = problemsOf({ RTC_MIN_PORT: 'x', MEDIA_LISTEN_IP: 'y', MEDIA_LOG_LEVEL: 'z' });
    expect(problems.map((problem) => problem.split(':')[0])).toEqual([
      'RTC_MIN_PORT',
      'MEDIA_LISTEN_IP',
      'MEDIA_LOG_LEVEL',
    ]);
  });

  it('loadMediaConfig() accepts IPv6 addresses', () => {
    const config = loadMediaConfig({ MEDIA_LISTEN_IP: '::', MEDIA_ANNOUNCED_IP: '2001:db8::7' });
    expect(config.listenIp).toBe('::');
    expect(config.announcedIp).toBe('2001:db8::7');
  });
});

describe('loadMediaConfig() secrets from files (NAME_FILE)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'voice-media-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let files = 0;
  /** A file holding `contents`, as Docker mounts a secret at /run/secrets/NAME. */
  const secretFile = (contents: string) => {
    const file = path.join(dir, `secret-${++files}`);
    writeFileSync(file, contents);
    return file;
  };
  const secret = 'mD4kR9tW2xQ7vB1nL6pZ3cF8hJ0sG5yE';
  const token = 'metrics-Qw8Er2Ty6Ui4Op0As5Df7Gh3Jk';

  it('loadMediaConfig() reads MEDIA_SECRET, REDIS_URL and METRICS_TOKEN from their files, trimmed', () => {
    const config = loadMediaConfig({
      MEDIA_SECRET_FILE: secretFile(`${secret}\n`),
      REDIS_URL_FILE: secretFile(' redis://:pw@cache:6379\n'),
      METRICS_TOKEN_FILE: secretFile(`${token}\n`),
    });
    expect(config).toMatchObject({ secret, redisUrl: 'redis://:pw@cache:6379', metrics: { token } });
  });

  it('loadMediaConfig() refuses NAME and NAME_FILE both set, an unreadable, empty or relative NAME_FILE', () => {
    expect(problemsOf({ MEDIA_SECRET: secret, MEDIA_SECRET_FILE: secretFile(secret) })).toEqual([
      'MEDIA_SECRET, MEDIA_SECRET_FILE: set one, not both',
    ]);
    const missing = path.join(dir, 'missing');
    expect(problemsOf({ MEDIA_SECRET_FILE: missing })).toEqual([
      `MEDIA_SECRET_FILE: cannot read ${missing} (ENOENT)`,
    ]);
    const empty = secretFile('\n');
    expect(problemsOf({ REDIS_URL_FILE: empty })).toEqual([`REDIS_URL_FILE: ${empty} is empty`]);
    expect(problemsOf({ METRICS_TOKEN_FILE: 'metrics_token' })).toEqual([
      'METRICS_TOKEN_FILE: must be an absolute path (got "metrics_token")',
    ]);
  });

  it("loadMediaConfig() checks a file's value as the variable's own, naming the variable", () => {
    expect(problemsOf({ MEDIA_SECRET_FILE: secretFile('short-secret\n') })).toEqual([
      'MEDIA_SECRET: must be at least 32 characters (got 12)',
    ]);
    expect(problemsOf({ REDIS_URL_FILE: secretFile('http://cache') })).toEqual([
      'REDIS_URL: must be a redis:// or rediss:// URL',
    ]);
    expect(problemsOf({ METRICS_TOKEN_FILE: secretFile('short') })[0]).toMatch(/^METRICS_TOKEN: /);
  });

  it('loadMediaConfig() puts REDIS_PASSWORD (or REDIS_PASSWORD_FILE) into REDIS_URL, decoding back to itself', () => {
    const password = 'p@ss/w:rd%41 é#?&=';
    for (const env of [{ REDIS_PASSWORD: password }, { REDIS_PASSWORD_FILE: secretFile(`${password}\n`) }]) {
      const { redisUrl } = loadMediaConfig({ REDIS_URL: 'redis://cache:6379', ...env });
      expect(decodeURIComponent(new URL(redisUrl as string).password)).toBe(password);
      expect(redisUrl).toMatch(/^redis:\/\/:[^@]+@cache:6379$/);
    }
    expect(problemsOf({ REDIS_PASSWORD: password })).toEqual(['REDIS_PASSWORD: needs REDIS_URL']);
    expect(problemsOf({ REDIS_URL: 'redis://:pw@cache', REDIS_PASSWORD: password })).toEqual([
      'REDIS_PASSWORD: REDIS_URL has a password already; set one, not both',
    ]);
  });
});
