/**
 * The one place where WebSocket upgrades are routed: each path to its endpoint (the app
 * socket at /ws, the media server's /rtc), and 404 for any other path.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { UpgradeTarget } from './ProtooEndpoint.ts';

/** Routes `server`'s upgrades by path; returns a function that unmounts the router. */
export function routeUpgrades(server: Server, routes: Readonly<Record<string, UpgradeTarget>>): () => void {
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // A client that breaks off mid-handshake must not become an unhandled 'error'.
    socket.on('error', () => socket.destroy());
    const pathname = pathOf(request.url);
    const target = pathname !== null && Object.hasOwn(routes, pathname) ? routes[pathname] : undefined;
    if (!target) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    target.handleUpgrade(request, socket, head);
  };
  server.on('upgrade', onUpgrade);
  return () => server.off('upgrade', onUpgrade);
}

function pathOf(url: string | undefined): string | null {
  try {
    return new URL(url ?? '/', 'http://localhost').pathname;
  } catch {
    return null;
  }
}
