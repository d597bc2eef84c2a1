/**
 * A raw WebSocket client (the `websocket` package) on the app socket's protoo
 * subprotocol, for tests that send what no protoo client would: any text, binary
 * frames, text frames that are not UTF-8.
 */
import websocket from 'websocket';
import { ticketedSocketUrl } from './socketTicket.ts';

/** A protoo response as it arrives. */
export interface RawResponse {
  response: true;
  id: number;
  ok?: boolean;
  data?: Record<string, unknown>;
  errorCode?: number;
  errorReason?: string;
}

export class RawSocket {
  /** Every text message the server sent, parsed. */
  readonly received: Record<string, unknown>[] = [];
  /** The close code and reason, once closed. */
  closedWith: { code: number; reason: string } | null = null;
  readonly #closed: Promise<{ code: number; reason: string }>;
  #nextId = 1;

  private constructor(readonly connection: websocket.connection) {
    connection.on('message', (message) => {
      if (message.type === 'utf8') this.received.push(JSON.parse(message.utf8Data));
    });
    // A refused frame can end the connection with an error first; the close event still follows.
    connection.on('error', () => {});
    this.#closed = new Promise((resolve) => {
      connection.on('close', (code, reason) => {
        this.closedWith = { code, reason };
        resolve(this.closedWith);
      });
    });
  }

  /** Connects to `${baseUrl}/ws` with a new ticket for `token`'s session. */
  static async connect(baseUrl: string, token: string): Promise<RawSocket> {
    return RawSocket.connectUrl(await ticketedSocketUrl(baseUrl, token));
  }

  /** Connects to any protoo endpoint, e.g. a media server's /rtc. */
  static connectUrl(url: string): Promise<RawSocket> {
    const client = new websocket.client({ maxReceivedFrameSize: 1024 * 1024 });
    return new Promise((resolve, reject) => {
      client.on('connectFailed', reject);
      client.on('connect', (connection) => resolve(new RawSocket(connection)));
      client.connect(url, 'protoo');
    });
  }

  get open(): boolean {
    return this.closedWith === null && this.connection.connected;
  }

  sendText(text: string): void {
    this.connection.sendUTF(text);
  }

  sendBinary(bytes: Buffer): void {
    this.connection.sendBytes(bytes);
  }

  /** A text frame whose payload is `bytes` as given, valid UTF-8 or not. */
  sendRawText(bytes: Buffer): void {
    const { connection } = this;
    // The typings omit the constructor's arguments (mask and header buffers, config).
    const Frame = websocket.frame as unknown as new (
      maskBytes: Buffer,
      frameHeader: Buffer,
      config: unknown,
    ) => websocket.frame;
    const frame = new Frame(connection.maskBytes, connection.frameHeader, connection.config);
    frame.opcode = 0x01;
    frame.fin = true;
    frame.mask = 1;
    frame.binaryPayload = bytes;
    connection.sendFrame(frame);
  }

  /** Sends a protoo request and resolves with its response (ok or not). */
  request(method: string, data: unknown = {}, timeoutMs = 5000): Promise<RawResponse> {
    const id = this.#nextId++;
    this.sendText(JSON.stringify({ request: true, id, method, data }));
    return this.waitFor(
      (m) => m.response === true && m.id === id,
      timeoutMs,
    ) as Promise<unknown> as Promise<RawResponse>;
  }

  /** The first message `match` accepts, waiting up to `timeoutMs`. */
  async waitFor(
    match: (message: Record<string, unknown>) => boolean,
    timeoutMs = 5000,
  ): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no matching message within ${timeoutMs} ms`);
      if (!this.open) throw new Error(`socket closed: ${JSON.stringify(this.closedWith)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** Resolves with the close code and reason once the connection has closed. */
  waitClosed(timeoutMs = 5000): Promise<{ code: number; reason: string }> {
    return Promise.race([
      this.#closed,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('socket still open')), timeoutMs).unref(),
      ),
    ]);
  }

  close(): void {
    if (this.connection.connected) this.connection.close();
  }
}
