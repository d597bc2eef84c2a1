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
import { callSocketHandlers, callSocketLifecycle } from './calls/socketHandlers.ts';
import { friendSocketHandlers } from './friends/socketHandlers.ts';
import { notificationSocketHandlers } from './notifications/socketHandlers.ts';
import { roomSocketHandlers } from './rooms/socketHandlers.ts';
import type { Services } from './services.ts';
import { AppSocketServer } from './socket/AppSocketServer.ts';

export interface RunningServer {
  http: Server;
  socket: AppSocketServer;
  /** The listener of its own for Prometheus (METRICS_PORT), if any. */
  metrics: MetricsListener | null;
  /** Stops accepting, closes every connection (also /rtc's); the services and the media server's workers stay. */
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
    sessions: services.sessions,
    presence: services.presence,
    bus: services.bus,
    handlers: {
      ...friendSocketHandlers(services.friends),
      ...callSocketHandlers(services.calls),
      ...notificationSocketHandlers(services.webPush.visibleTabs),
      ...roomSocketHandlers(services.rooms, services.roomWatchers, services.limiter),
    },
    lifecycle: [callSocketLifecycle(services.calls), services.roomWatchers, services.webPush.visibleTabs],
    logger: services.logger,
    allowedOrigins: [new URL(services.config.publicUrl).origin],
    registry: services.socketRegistry,
  });
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
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
