/**
 * What every process of the platform (API or media server) shares for Prometheus: a registry of
 * its own with Node's process and event-loop metrics, the bus's counters, and the two ways
 * `/metrics` is served: a listener of its own (METRICS_PORT) or a bearer token (METRICS_TOKEN)
 * on the process's main port. The API imports these from here, as it imports the media server.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BusObserver } from '@voice/bus';
import { ERRORS, type ErrorBody, type ErrorCode } from '@voice/protocol';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** Where Prometheus reads a process's metrics (METRICS_PORT, METRICS_HOST, METRICS_TOKEN). */
export interface MetricsConfig {
  /** A listener of its own serving GET /metrics; null: none. */
  readonly port: number | null;
  /** The address that listener binds to. */
  readonly host: string;
  /** GET /metrics on the main port with `Authorization: Bearer <token>`; null: 404 there. */
  readonly token: string | null;
}

/** Shortest METRICS_TOKEN: as long as the platform's other secrets. */
export const METRICS_TOKEN_MIN_LENGTH = 32;

/**
 * The problems of a METRICS_TOKEN, none when it will do: long, random-looking, and sendable as is
 * in an Authorization header (visible ASCII, no spaces).
 */
export function metricsTokenProblems(token: string): string[] {
  if (token.length < METRICS_TOKEN_MIN_LENGTH) {
    return [`METRICS_TOKEN: must be at least ${METRICS_TOKEN_MIN_LENGTH} characters (got ${token.length})`];
  }
  if (!/^[\x21-\x7e]+$/.test(token)) {
    return ['METRICS_TOKEN: only visible ASCII characters without spaces (it is sent in a header)'];
  }
  if (new Set(token).size < 10) {
    return ['METRICS_TOKEN: too weak; use a random value (e.g. `openssl rand -hex 32`)'];
  }
  return [];
}

/** A registry of its own (not prom-client's global one) with Node's process and event-loop metrics. */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Counters of what this process publishes on the bus and receives from it, for an ObservedBus. */
export function busMetrics(registry: Registry): BusObserver {
  const registers = [registry];
  const published = new Counter({
    name: 'voice_bus_messages_published_total',
    help: 'Messages this process published on the bus, by channel and outcome (ok, error)',
    labelNames: ['channel', 'outcome'],
    registers,
  });
  const publishSeconds = new Histogram({
    name: 'voice_bus_publish_duration_seconds',
    help: 'Time for a publish to be accepted (Redis answering PUBLISH); messages carry no send time, so end-to-end lag is not measured',
    labelNames: ['channel'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers,
  });
  const received = new Counter({
    name: 'voice_bus_messages_received_total',
    help: "Well-formed bus messages handed to this process's subscribers, by channel (one per subscriber)",
    labelNames: ['channel'],
    registers,
  });
  return {
    published(channel, seconds, ok) {
      published.inc({ channel, outcome: ok ? 'ok' : 'error' });
      publishSeconds.observe({ channel }, seconds);
    },
    received(channel) {
      received.inc({ channel });
    },
  };
}

/** True when an Authorization header carries `Bearer <token>`; compared in constant time. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? '');
  // Digests have one length, so neither the comparison nor an early exit tells the token's length.
  const given = createHash('sha256')
    .update(match?.[1] ?? '')
    .digest();
  const expected = createHash('sha256').update(token).digest();
  return timingSafeEqual(given, expected) && match !== null;
}

/**
 * Answers a request for /metrics with `registry`'s text: 404 to anything but GET and HEAD, 401
 * when `token` is given and the request does not carry it. The caller decides the path.
 */
export async function answerMetrics(
  registry: Registry,
  request: IncomingMessage,
  response: ServerResponse,
  token: string | null,
): Promise<void> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    answerError(response, 'NOT_FOUND');
    return;
  }
  if (token !== null && !bearerMatches(request.headers.authorization, token)) {
    answerError(response, 'UNAUTHORIZED', { 'www-authenticate': 'Bearer' });
    return;
  }
  const text = await registry.metrics();
  response.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' });
  response.end(request.method === 'HEAD' ? undefined : text);
}

/** A listener of its own for Prometheus (startMetricsListener). */
export interface MetricsListener {
  readonly server: Server;
  /** The port it listens on (the one chosen when METRICS_PORT is 0). */
  readonly port: number;
  /** Stops listening and cuts open connections. Safe to call more than once. */
  close(): Promise<void>;
}

/**
 * A listener of its own for Prometheus (METRICS_PORT): GET /metrics without a token, since the
 * port is meant to be reachable from the monitoring network only; 404 for anything else.
 */
export async function startMetricsListener(
  registry: Registry,
  port: number,
  host: string,
): Promise<MetricsListener> {
  const server = createServer((request, response) => {
    if ((request.url ?? '').split('?')[0] !== '/metrics') {
      answerError(response, 'NOT_FOUND');
      return;
    }
    answerMetrics(registry, request, response, null).catch(() => {
      // A collect callback failed: this scrape fails, the process goes on.
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  server.listen(port, host);
  try {
    await once(server, 'listening');
  } catch (error) {
    // Taken, or an address this machine does not have: say which setting to change.
    throw new Error(`METRICS_PORT: cannot listen on ${host}:${port} (${(error as Error).message})`);
  }
  let closing: Promise<void> | null = null;
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close() {
      closing ??= new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** The API's error shape, so a client reads every refusal alike. */
function answerError(response: ServerResponse, code: ErrorCode, headers: Record<string, string> = {}): void {
  const body: ErrorBody = { error: { code, message: ERRORS[code].message } };
  response.writeHead(ERRORS[code].status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}
