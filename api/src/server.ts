/**
 * The HTTP server: the Koa app for requests, and WebSocket upgrades routed by path in
 * one place: `/ws` to the app socket, `/rtc` to the embedded media server when there is
 * one, 404 for anything else.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { type MediaServer, type MetricsListener, startMetricsListener } from '@voice/media-server';
import { APP_SOCKET_PATH, MEDIA_SOCKET_PATH } from '@voice/protocol';
import { routeUpgrades, type UpgradeTarget } from '@voice/signalling';
import { createApp } from './app.ts';
import type { Services } from './services.ts';
import { AppSocketServer } from './socket/AppSocketServer.ts';

export interface RunningServer {
  http: Server;
  socket: AppSocketServer;
  /** The listener of its own for Prometheus (METRICS_PORT), if any. */
  metrics: MetricsListener | null;
  /**
   * Stops accepting, closes every socket (also /rtc's) with code 1001, lets requests in
   * flight finish (up to DRAIN_TIMEOUT_MS), then closes every connection; the services and
   * the media server's workers stay.
   */
  close(): Promise<void>;
}

/** Options of startServer(). */
export interface ServerOptions {
  /** The media server embedded in this process, whose `/rtc` this server routes. */
  media?: MediaServer | null;
}

export async function startServer(
  services: Services,
  port: number,
  host: string,
  { media = null }: ServerOptions = {},
): Promise<RunningServer> {
  const http = createServer(createApp(services).callback());
  const socket = new AppSocketServer({
    tickets: services.socketTickets,
    presence: services.presence,
    bus: services.bus,
    handlers: services.socketHandlers,
    lifecycle: services.socketLifecycle,
    logger: services.logger,
    allowedOrigins: [new URL(services.config.publicUrl).origin],
    registry: services.socketRegistry,
  });
  services.notifier.attachLocalTabs(socket);
  services.metrics.watchAppSockets(() => socket.connectionCount);
  if (media) services.metrics.watchMedia(media);
  const { port: metricsPort, host: metricsHost } = services.config.metrics;
  const metrics =
    metricsPort === null
      ? null
      : await startMetricsListener(services.metrics.registry, metricsPort, metricsHost);
  const routes: Record<string, UpgradeTarget> = { [APP_SOCKET_PATH]: socket.endpoint };
  if (media) routes[MEDIA_SOCKET_PATH] = media.rtc.endpoint;
  const unroute = routeUpgrades(http, routes);
  http.listen(port, host);
  await once(http, 'listening');
  let closed = false;
  return {
    http,
    socket,
    metrics,
    async close() {
      if (closed) return;
      closed = true;
      unroute();
      socket.close();
      // Its connections came in through this server; the media server itself stays up.
      media?.rtc.close();
      await metrics?.close();
      await drain(http, DRAIN_TIMEOUT_MS);
    },
  };
}

/** Within docker's 10 s between SIGTERM and SIGKILL, with room for the rest of the shutdown. */
const DRAIN_TIMEOUT_MS = 5000;

/**
 * Closes the server once the requests in flight have their answers: idle keep-alive
 * connections close at once, busy ones as soon as they are idle, whatever is left at the
 * deadline is cut.
 */
async function drain(http: Server, timeoutMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => http.close(() => resolve()));
  http.closeIdleConnections();
  const sweep = setInterval(() => http.closeIdleConnections(), 50);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      http.closeAllConnections();
      resolve();
    }, timeoutMs);
  });
  try {
    await Promise.race([closed, deadline]);
  } finally {
    clearInterval(sweep);
    clearTimeout(timer);
  }
}
