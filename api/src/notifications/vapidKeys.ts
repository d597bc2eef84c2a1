/**
 * The VAPID key pair that signs every push request (RFC 8292): from the environment, or
 * generated on first start and kept in DATA_DIR, so browsers' subscriptions (made for one
 * public key) survive restarts.
 */
import { createECDH } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import webpush from 'web-push';
import { PRIVATE_FILE_MODE, privateDirSync } from '../privateFiles.ts';

/** The application server's keys (base64url) and the contact push services may write to. */
export interface VapidConfig {
  /** Uncompressed P-256 point, 65 bytes. */
  publicKey: string;
  /** P-256 private scalar, 32 bytes. */
  privateKey: string;
  /** `mailto:` address or `https:` URL (RFC 8292 section 2.1). */
  subject: string;
}

const KEY_FILE = 'vapid-keys.json';

/**
 * VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY (both or neither, and a matching pair) and
 * VAPID_SUBJECT; problems are added to `problems` as config.ts does.
 */
export function parseVapid(
  env: { publicKey: string | null; privateKey: string | null; subject: string | null },
  defaults: { dataDir: string; mailFrom: string; publicUrl: string },
  problems: string[],
): Readonly<VapidConfig> | null {
  const subject = env.subject ?? defaultSubject(defaults.mailFrom, defaults.publicUrl);
  if (!/^(mailto:[^\s@]+@[^\s@]+|https:\/\/[^\s]+)$/.test(subject))
    problems.push('VAPID_SUBJECT: must be a mailto: address or an https: URL');
  if ((env.publicKey === null) !== (env.privateKey === null)) {
    problems.push('VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY: set both or neither');
    return null;
  }
  if (env.publicKey !== null && env.privateKey !== null) {
    const problem = pairProblem(env.publicKey, env.privateKey);
    if (problem) {
      problems.push(`VAPID_PUBLIC_KEY/VAPID_PRIVATE_KEY: ${problem}`);
      return null;
    }
    return Object.freeze({ publicKey: env.publicKey, privateKey: env.privateKey, subject });
  }
  if (problems.length > 0) return null;
  return Object.freeze({ ...persistentKeys(defaults.dataDir), subject });
}

/** `mailto:` + the address in MAIL_FROM ("Name <a@b>" or "a@b"), else the public URL. */
function defaultSubject(mailFrom: string, publicUrl: string): string {
  const address = /<([^<>\s]+@[^<>\s]+)>/.exec(mailFrom)?.[1] ?? /^[^\s@<>]+@[^\s@<>]+$/.exec(mailFrom)?.[0];
  return address ? `mailto:${address}` : publicUrl;
}

/** Why the pair is unusable, or null: a public key must be the private key's own. */
function pairProblem(publicKey: string, privateKey: string): string | null {
  const pub = decode(publicKey);
  const priv = decode(privateKey);
  if (pub?.length !== 65 || pub[0] !== 4)
    return 'the public key must be a base64url uncompressed P-256 point (65 bytes)';
  if (priv?.length !== 32) return 'the private key must be 32 bytes, base64url';
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(priv);
    if (!ecdh.getPublicKey().equals(pub)) return 'the public key is not the private key’s';
  } catch {
    return 'the private key is not a P-256 key';
  }
  return null;
}

function decode(value: string): Buffer | null {
  return /^[A-Za-z0-9_-]+$/.test(value) ? Buffer.from(value, 'base64url') : null;
}

/** The pair kept in DATA_DIR, made on first start (file 0600, like the JWT secret). */
function persistentKeys(dataDir: string): { publicKey: string; privateKey: string } {
  const file = path.join(dataDir, KEY_FILE);
  try {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { publicKey?: unknown; privateKey?: unknown };
    if (
      typeof stored.publicKey === 'string' &&
      typeof stored.privateKey === 'string' &&
      pairProblem(stored.publicKey, stored.privateKey) === null
    )
      return { publicKey: stored.publicKey, privateKey: stored.privateKey };
  } catch (error) {
    if (!(error instanceof SyntaxError) && (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  privateDirSync(dataDir);
  const keys = webpush.generateVAPIDKeys();
  writeFileSync(file, `${JSON.stringify(keys)}\n`, { mode: PRIVATE_FILE_MODE, flag: 'w' });
  return keys;
}
