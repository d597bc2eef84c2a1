/** The HTTP server with the Koa app and the app socket mounted on it. */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { Services } from '../services.ts';
import { AppSocketServer } from '../socket/AppSocketServer.ts';
import { createHandlers } from '../socket/handlers.ts';
import { createApp } from './app.ts';

export interface RunningServer {
  http: Server;
  socket: AppSocketServer;
  /** Stops accepting, closes every connection; the services stay open. */
  close(): Promise<void>;
}

export async function startServer(services: Services, port: number, host: string): Promise<RunningServer> {
  const http = createServer(createApp(services).callback());
  const socket = new AppSocketServer(http, {
    sessions: services.sessions,
    presence: services.presence,
    bus: services.bus,
    handlers: createHandlers({ friends: services.friends }),
    logger: services.logger,
    allowedOrigins: [new URL(services.config.publicUrl).origin],
  });
  http.listen(port, host);
  await once(http, 'listening');
  let closed = false;
  return {
    http,
    socket,
    async close() {
      if (closed) return;
      closed = true;
      socket.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
