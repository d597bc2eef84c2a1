/**
 * For tests: a push service on loopback that checks what a real one checks (the VAPID JWT
 * for its origin) and browser subscriptions whose keys the test holds, so it can decrypt
 * the aes128gcm body as the browser would.
 */
import { createECDH, createPublicKey, type ECDH, randomBytes, verify } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { PushPayload, PushSubscriptionJson } from '@voice/protocol';

/** http_ece ships no types; decrypt() is all a test needs of it. */
const ece = createRequire(import.meta.url)('http_ece') as {
  decrypt(body: Buffer, params: { version: 'aes128gcm'; privateKey: ECDH; authSecret: string }): Buffer;
};

/** One request the push service received. */
export interface ReceivedPush {
  path: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
  at: number;
}

/** How the service answers requests to one path: a status, after a delay. */
interface Answer {
  status: number;
  delayMs: number;
}

/** A browser's subscription made for the fake service, with the keys to read its pushes. */
export interface TestSubscription {
  json: PushSubscriptionJson;
  path: string;
  /** Decrypts an aes128gcm body sent to this subscription. */
  decrypt(body: Buffer): PushPayload;
}

export class FakePushService {
  readonly received: ReceivedPush[] = [];
  readonly #answers = new Map<string, Answer>();
  readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      this.received.push({ path, headers: req.headers, body: Buffer.concat(chunks), at: Date.now() });
      const answer = this.#answers.get(path) ?? { status: 201, delayMs: 0 };
      const timer = setTimeout(() => res.writeHead(answer.status).end(), answer.delayMs);
      res.on('close', () => clearTimeout(timer));
    });
  });
  #counter = 0;

  private constructor() {}

  static async start(): Promise<FakePushService> {
    const service = new FakePushService();
    service.server.listen(0, '127.0.0.1');
    await once(service.server, 'listening');
    return service;
  }

  /** `http://127.0.0.1:<port>`. */
  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** `host:port`, for PUSH_ALLOWED_HOSTS. */
  get host(): string {
    return new URL(this.origin).host;
  }

  /** A new browser subscription: its own P-256 key pair and auth secret, its own path. */
  subscription(): TestSubscription {
    this.#counter += 1;
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const auth = randomBytes(16).toString('base64url');
    const path = `/push/${this.#counter}-${randomBytes(8).toString('hex')}`;
    return {
      json: {
        endpoint: `${this.origin}${path}`,
        expirationTime: null,
        keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth },
      },
      path,
      decrypt: (body) =>
        JSON.parse(
          ece.decrypt(body, { version: 'aes128gcm', privateKey: ecdh, authSecret: auth }).toString('utf8'),
        ) as PushPayload,
    };
  }

  /** From now on, requests to `path` are answered `status` after `delayMs`. */
  answer(path: string, status: number, delayMs = 0): void {
    this.#answers.set(path, { status, delayMs });
  }

  /** The requests to `path` so far. */
  to(path: string): ReceivedPush[] {
    return this.received.filter((push) => push.path === path);
  }

  /** Waits until `path` has had `count` requests; they are returned. */
  async waitFor(path: string, count = 1, timeoutMs = 5000): Promise<ReceivedPush[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.to(path).length < count) {
      if (Date.now() > deadline) throw new Error(`push service: ${this.to(path).length} of ${count} pushes`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return this.to(path);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** Claims of a VAPID JWT whose ES256 signature `publicKey` verifies; throws when it does not. */
export function verifyVapid(
  authorization: string | undefined,
  publicKey: string,
): { aud: string; exp: number; sub: string } {
  const match = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(authorization ?? '');
  if (!match) throw new Error(`not a VAPID authorization: ${authorization}`);
  const [, token, key] = match as unknown as [string, string, string];
  if (key !== publicKey) throw new Error('VAPID k is not the server key');
  const [header, claims, signature] = token.split('.') as [string, string, string];
  if (JSON.parse(Buffer.from(header, 'base64url').toString()).alg !== 'ES256') throw new Error('not ES256');
  const point = Buffer.from(publicKey, 'base64url');
  const jwk = {
    kty: 'EC',
    crv: 'P-256',
    x: point.subarray(1, 33).toString('base64url'),
    y: point.subarray(33, 65).toString('base64url'),
  };
  const valid = verify(
    'sha256',
    Buffer.from(`${header}.${claims}`),
    { key: createPublicKey({ key: jwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  if (!valid) throw new Error('VAPID signature does not verify');
  return JSON.parse(Buffer.from(claims, 'base64url').toString());
}
