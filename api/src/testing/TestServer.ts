/**
 * The real API on an ephemeral loopback port, for integration tests: real
 * PostgreSQL (DATABASE_URL) or the embedded database, real Redis when REDIS_URL is
 * set, and a real SMTP listener.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadMediaConfig, MediaServer, type RtcAuthenticator } from '@voice/media-server';
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { type RunningServer, startServer } from '../server.ts';
import { createServices, type Services } from '../services.ts';
import { SmtpSink } from './SmtpSink.ts';

export interface Reply<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export class TestServer {
  private constructor(
    readonly services: Services,
    readonly smtp: SmtpSink,
    readonly baseUrl: string,
    readonly dataDir: string,
    readonly server: RunningServer,
    /** The embedded media server, when the test asked for one. */
    readonly media: MediaServer | null = null,
  ) {}

  /**
   * `env` overrides the process environment (e.g. RATE_LIMIT_FACTOR). With `media`, an
   * embedded media server (one real mediasoup worker) serves `/rtc`, admitting whom
   * `media.authenticate` admits, or the holders of room tokens signed with `media.secret`
   * (the API's MEDIA_SECRET: give both).
   */
  static async start(
    env: Record<string, string> = {},
    options: { media?: { authenticate?: RtcAuthenticator; secret?: string } } = {},
  ): Promise<TestServer> {
    const smtp = await SmtpSink.start();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'voice-api-test-'));
    const config = loadConfig({
      DATABASE_URL: process.env.DATABASE_URL,
      REDIS_URL: process.env.REDIS_URL,
      RATE_LIMIT_FACTOR: '100',
      // Counters in a shared Redis must not leak from one run into the next.
      REDIS_PREFIX: `test:${randomUUID()}:`,
      LOG_LEVEL: 'error',
      PRESENCE_DISCONNECT_WAIT_MS: '200',
      PUBLIC_URL: 'http://app.test',
      ...env,
      DATA_DIR: dataDir,
      SMTP_URL: smtp.url,
      PORT: '0',
    });
    const services = await createServices(config, createLogger(config.logLevel, 'test'));
    const media = options.media
      ? await MediaServer.create({
          config: loadMediaConfig({ MEDIA_NUM_WORKERS: '1', RTC_MIN_PORT: '47000', RTC_MAX_PORT: '47999' }),
          bus: services.bus,
          logger: services.logger,
          url: 'ws://app.test/rtc',
          spentTokens: services.spentRoomTokens,
          ...options.media,
        })
      : null;
    const server = await startServer(services, 0, '127.0.0.1', { media });
    const { port } = server.http.address() as AddressInfo;
    return new TestServer(services, smtp, `http://127.0.0.1:${port}`, dataDir, server, media);
  }

  /** Sends JSON (or a raw string body) and parses the JSON answer. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers of every shape
  async request<T = any>(
    method: string,
    route: string,
    {
      body,
      token,
      raw,
      headers = {},
    }: { body?: unknown; token?: string; raw?: string; headers?: Record<string, string> } = {},
  ): Promise<Reply<T>> {
    const init: RequestInit = { method, headers: { ...headers } };
    const h = init.headers as Record<string, string>;
    if (token) h.authorization = `Bearer ${token}`;
    if (raw !== undefined || body !== undefined) {
      h['content-type'] ??= 'application/json';
      init.body = raw ?? JSON.stringify(body);
    }
    const res = await fetch(`${this.baseUrl}/api${route}`, init);
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  }

  /** Sends multipart/form-data (e.g. a file as a Blob) and parses the JSON answer. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers of every shape
  async upload<T = any>(
    route: string,
    form: FormData,
    { token }: { token?: string } = {},
  ): Promise<Reply<T>> {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    const res = await fetch(`${this.baseUrl}/api${route}`, { method: 'POST', headers, body: form });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  }

  async close(): Promise<void> {
    await this.server.close();
    await this.media?.close();
    await this.services.close();
    await this.smtp.close();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

let counter = 0;

/** A username unique across runs sharing one database. */
export function uniqueName(prefix = 'u'): string {
  counter += 1;
  return `${prefix}_${Date.now().toString(36)}${process.pid.toString(36)}${counter}`.slice(0, 32);
}

/** Registers a fresh account and returns its credentials and token. */
export async function signUp(server: TestServer, overrides: Record<string, unknown> = {}) {
  const username = uniqueName();
  const credentials = {
    username,
    email: `${username}@example.test`,
    password: 'secret123',
    acceptTerms: true,
    ...overrides,
  };
  const res = await server.request('POST', '/auth/register', { body: credentials });
  if (res.status !== 201) throw new Error(`sign-up failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { ...credentials, token: res.body.token as string, user: res.body.user };
}

/** Registers two accounts and makes them friends. */
export async function signUpFriends(server: TestServer) {
  const a = await signUp(server);
  const b = await signUp(server);
  await server.request('POST', '/users/friend-request', { token: a.token, body: { userId: b.user.id } });
  await server.request('POST', '/users/friend-request/accept', {
    token: b.token,
    body: { userId: a.user.id },
  });
  return [a, b] as const;
}
