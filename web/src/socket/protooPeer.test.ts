/** createProtooPeer against a real WebSocket server: the close code reaches ReconnectingPeer. */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import websocket from 'websocket';
import { createProtooPeer } from './protooPeer.ts';

interface NoRequests {
  nothing: { data: undefined; reply: undefined };
}

let http: Server | null = null;
afterEach(() => {
  http?.closeAllConnections();
  http?.close();
  http = null;
});

/** A server that accepts one protoo connection and closes it with `code` after it opened. */
async function closingServer(code: number): Promise<string> {
  http = createServer();
  const server = new websocket.server({ httpServer: http });
  server.on('request', (request) => {
    const connection = request.accept('protoo', request.origin);
    setTimeout(() => connection.close(code, 'test'), 50);
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  return `ws://127.0.0.1:${(http.address() as AddressInfo).port}/`;
}

describe('createProtooPeer', () => {
  it.each([1001, 1000])('knows the close code (%i) when it tells of the disconnection', async (code) => {
    const peer = createProtooPeer<NoRequests>(await closingServer(code));
    const seen = new Promise<number | null | undefined>((resolve) => {
      peer.on('disconnected', () => resolve(peer.closeCode));
    });
    await new Promise<void>((resolve) => peer.on('open', () => resolve()));
    expect(await seen).toBe(code);
    peer.close();
  });
});
