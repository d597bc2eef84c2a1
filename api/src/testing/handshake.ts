/** A raw WebSocket handshake on the protoo subprotocol, for tests of what the server admits. */
import websocket from 'websocket';

/** The handshake's HTTP status (101 when admitted) and, for a refusal, the server's reason. */
export function handshake(url: string, origin?: string): Promise<{ status: number; reason: string }> {
  return new Promise((resolve) => {
    const client = new websocket.client();
    client.on('connectFailed', (error: Error) =>
      resolve({
        status: Number(error.message.match(/status: (\d+)/)?.[1] ?? 0),
        reason: error.message.match(/X-WebSocket-Reject-Reason: ([^\n]*)/i)?.[1]?.trim() ?? '',
      }),
    );
    client.on('connect', (connection) => {
      connection.close();
      resolve({ status: 101, reason: '' });
    });
    client.connect(url, 'protoo', origin);
  });
}
