/** VAPID_* parsing through loadConfig: a matching pair or none, a usable subject, keys kept in DATA_DIR. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import webpush from 'web-push';
import { ConfigError, loadConfig } from '../config.ts';

const dirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'voice-vapid-'));
  dirs.push(dir);
  return dir;
};
const problemsOf = (env: Record<string, string>) => {
  try {
    loadConfig({ DATA_DIR: dataDir(), ...env });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
};

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('loadConfig() VAPID', () => {
  it('generates a pair on first start and reads the same one on the next', () => {
    const dir = dataDir();
    const first = loadConfig({ DATA_DIR: dir, MAIL_FROM: 'Voice <ops@voice.example>' }).vapid;
    expect(first.subject).toBe('mailto:ops@voice.example');
    expect(Buffer.from(first.publicKey, 'base64url')).toHaveLength(65);
    expect(loadConfig({ DATA_DIR: dir }).vapid).toMatchObject({
      publicKey: first.publicKey,
      privateKey: first.privateKey,
    });
  });

  it('takes a matching pair and subject from the environment', () => {
    const keys = webpush.generateVAPIDKeys();
    const config = loadConfig({
      DATA_DIR: dataDir(),
      VAPID_PUBLIC_KEY: keys.publicKey,
      VAPID_PRIVATE_KEY: keys.privateKey,
      VAPID_SUBJECT: 'https://voice.example/contact',
    });
    expect(config.vapid).toEqual({ ...keys, subject: 'https://voice.example/contact' });
  });

  it('refuses half a pair, keys that do not match or are no keys, a bad subject and a bad host list', () => {
    const [a, b] = [webpush.generateVAPIDKeys(), webpush.generateVAPIDKeys()];
    expect(problemsOf({ VAPID_PUBLIC_KEY: a.publicKey })).toEqual([
      'VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY: set both or neither',
    ]);
    expect(problemsOf({ VAPID_PUBLIC_KEY: a.publicKey, VAPID_PRIVATE_KEY: b.privateKey })[0]).toMatch(
      /not the private key/,
    );
    expect(problemsOf({ VAPID_PUBLIC_KEY: 'abc', VAPID_PRIVATE_KEY: a.privateKey })[0]).toMatch(/65 bytes/);
    expect(problemsOf({ VAPID_SUBJECT: 'http://voice.example' })).toEqual([
      'VAPID_SUBJECT: must be a mailto: address or an https: URL',
    ]);
    expect(problemsOf({ PUSH_ALLOWED_HOSTS: '127.0.0.1:8443,example.com' })).toEqual([
      'PUSH_ALLOWED_HOSTS: each entry must be host:port, got "example.com"',
    ]);
  });
});
