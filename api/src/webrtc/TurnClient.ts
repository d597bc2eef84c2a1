/**
 * A minimal STUN/TURN client over UDP (RFC 8489, RFC 8656), for tests against a real coturn and
 * for the doctor's checks of a deployed one: Binding, Allocate with long-term credentials,
 * CreatePermission, Send and Data indications, Refresh. It reports error responses as
 * TurnError, so a caller can tell "401 Unauthorized" from "403 Forbidden IP".
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { isIPv6 } from 'node:net';

const MAGIC = 0x2112a442;
const HEADER = 20;

const METHOD = {
  binding: 0x001,
  allocate: 0x003,
  refresh: 0x004,
  send: 0x006,
  data: 0x007,
  createPermission: 0x008,
};
const CLASS = { request: 0, indication: 1, success: 2, error: 3 };
const ATTR = {
  username: 0x0006,
  messageIntegrity: 0x0008,
  errorCode: 0x0009,
  lifetime: 0x000d,
  xorPeerAddress: 0x0012,
  data: 0x0013,
  realm: 0x0014,
  nonce: 0x0015,
  xorRelayedAddress: 0x0016,
  requestedAddressFamily: 0x0017,
  requestedTransport: 0x0019,
  xorMappedAddress: 0x0020,
};
const UDP = 17;
// RFC 8489's retransmission for UDP, shortened: about 2 s in all, enough for a server on loopback or a VPS.
const RETRANSMIT_MS = 250;
const ATTEMPTS = 8;

/** A transport address. */
export interface Address {
  address: string;
  port: number;
}

/** A decoded STUN message. */
export interface StunMessage {
  type: number;
  transactionId: Buffer;
  attributes: Map<number, Buffer>;
}

/** An error response: `code` is the STUN error code (401, 403, 438, 441, 486, ...). */
export class TurnError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    readonly response: StunMessage,
  ) {
    super(`${code} ${reason}`);
    this.name = 'TurnError';
  }
}

type Message = StunMessage;
/** A request's attributes; XOR-encoded IPv6 addresses depend on the transaction id. */
type Attributes = (transactionId: Buffer) => [number, Buffer][];

interface Pending {
  resolve(message: Message): void;
  reject(error: Error): void;
}

export class TurnClient {
  readonly #socket: Socket;
  readonly #server: Address;
  readonly #pending = new Map<string, Pending>();
  readonly #data: { peer: Address; data: Buffer }[] = [];
  #dataWaiter: (() => void) | null = null;
  #auth: { username: string; realm: string; nonce: Buffer; key: Buffer } | null = null;
  #closed = false;
  /** The relayed address after a successful allocate(). */
  relayed: Address | null = null;

  private constructor(socket: Socket, server: Address) {
    this.#socket = socket;
    this.#server = server;
    socket.on('message', (packet) => this.#onPacket(packet));
  }

  /**
   * A client on an ephemeral port of the server's family: on loopback for a server on
   * loopback, on every interface otherwise. `server.address` must be an IP address.
   */
  static async connect(server: Address): Promise<TurnClient> {
    const v6 = isIPv6(server.address);
    const socket = createSocket(v6 ? 'udp6' : 'udp4');
    const loopback = server.address === '::1' || server.address.startsWith('127.');
    const local = loopback ? (v6 ? '::1' : '127.0.0.1') : v6 ? '::' : '0.0.0.0';
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, local, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    return new TurnClient(socket, server);
  }

  /** A STUN Binding request: this client's address as the server sees it. */
  async binding(): Promise<Address> {
    const answer = await this.#transact(METHOD.binding, () => []);
    return decodeXorAddress(required(answer, ATTR.xorMappedAddress), answer.transactionId);
  }

  /**
   * An Allocate request with long-term credentials: first unauthenticated to learn the realm
   * and nonce (401), then signed. Rejects with TurnError when the server refuses.
   */
  async allocate(credentials: {
    username: string;
    password: string;
    family?: 'ipv4' | 'ipv6';
  }): Promise<Address> {
    const attributes: Attributes = () => [
      [ATTR.requestedTransport, Buffer.from([UDP, 0, 0, 0])],
      ...(credentials.family === 'ipv6'
        ? [[ATTR.requestedAddressFamily, Buffer.from([2, 0, 0, 0])] as [number, Buffer]]
        : []),
    ];
    const challenge = await this.#transact(METHOD.allocate, attributes).then(
      () => {
        throw new Error('the server allocated without credentials');
      },
      (error: unknown) => {
        if (!(error instanceof TurnError) || error.code !== 401) throw error;
        return error.response;
      },
    );
    const realm = required(challenge, ATTR.realm).toString('utf8');
    this.#auth = {
      username: credentials.username,
      realm,
      nonce: required(challenge, ATTR.nonce),
      key: createHash('md5').update(`${credentials.username}:${realm}:${credentials.password}`).digest(),
    };
    const answer = await this.#signed(METHOD.allocate, attributes);
    this.relayed = decodeXorAddress(required(answer, ATTR.xorRelayedAddress), answer.transactionId);
    return this.relayed;
  }

  /** Asks the server to let `peer` (an IP address) reach this allocation. */
  async createPermission(peer: string): Promise<void> {
    await this.#signed(METHOD.createPermission, (id) => [
      [ATTR.xorPeerAddress, encodeXorAddress({ address: peer, port: 0 }, id)],
    ]);
  }

  /** Relays `data` to `peer` (a Send indication; needs a permission for its address). */
  send(peer: Address, data: Buffer): void {
    const id = randomBytes(12);
    const { packet } = encode(METHOD.send, CLASS.indication, id, [
      [ATTR.xorPeerAddress, encodeXorAddress(peer, id)],
      [ATTR.data, data],
    ]);
    this.#socket.send(packet, this.#server.port, this.#server.address);
  }

  /** The next datagram relayed to this allocation (a Data indication). */
  async receive(timeoutMs = 5000): Promise<{ peer: Address; data: Buffer }> {
    const deadline = Date.now() + timeoutMs;
    while (this.#data.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('no relayed data arrived');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#dataWaiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return this.#data.shift() as { peer: Address; data: Buffer };
  }

  /** Frees the allocation (a Refresh with lifetime 0) and closes the socket. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    if (this.relayed) {
      await this.#signed(METHOD.refresh, () => [[ATTR.lifetime, Buffer.from([0, 0, 0, 0])]]).catch(() => {});
      this.relayed = null;
    }
    this.#closed = true;
    for (const pending of this.#pending.values()) pending.reject(new Error('client closed'));
    this.#pending.clear();
    this.#socket.close();
  }

  /** A request with USERNAME, REALM, NONCE and MESSAGE-INTEGRITY; renews a stale nonce once. */
  async #signed(method: number, attributes: Attributes, retried = false): Promise<Message> {
    const auth = this.#auth;
    if (!auth) throw new Error('allocate() first');
    const signed: Attributes = (id) => [
      ...attributes(id),
      [ATTR.username, Buffer.from(auth.username, 'utf8')],
      [ATTR.realm, Buffer.from(auth.realm, 'utf8')],
      [ATTR.nonce, auth.nonce],
    ];
    try {
      return await this.#transact(method, signed, auth.key);
    } catch (error) {
      if (!(error instanceof TurnError) || error.code !== 438 || retried) throw error;
      auth.nonce = required(error.response, ATTR.nonce);
      return this.#signed(method, attributes, true);
    }
  }

  async #transact(method: number, attributes: Attributes, key?: Buffer): Promise<Message> {
    if (this.#closed) throw new Error('client closed');
    const transactionId = randomBytes(12);
    const { packet } = encode(method, CLASS.request, transactionId, attributes(transactionId), key);
    const id = transactionId.toString('hex');
    const answer = new Promise<Message>((resolve, reject) => this.#pending.set(id, { resolve, reject }));
    let timer: NodeJS.Timeout | undefined;
    let attempts = 0;
    const sendOnce = () => {
      if (attempts++ >= ATTEMPTS) {
        this.#pending
          .get(id)
          ?.reject(new Error(`no answer from ${this.#server.address}:${this.#server.port}`));
        this.#pending.delete(id);
        return;
      }
      this.#socket.send(packet, this.#server.port, this.#server.address);
      timer = setTimeout(sendOnce, RETRANSMIT_MS);
    };
    sendOnce();
    try {
      const message = await answer;
      if (classOf(message.type) === CLASS.error) {
        const value = required(message, ATTR.errorCode);
        const code = (value[2] as number & 7) * 100 + (value[3] as number);
        throw new TurnError(code, value.subarray(4).toString('utf8'), message);
      }
      return message;
    } finally {
      clearTimeout(timer);
      this.#pending.delete(id);
    }
  }

  #onPacket(packet: Buffer): void {
    const message = decode(packet);
    if (!message) return;
    if (classOf(message.type) === CLASS.indication) {
      if (methodOf(message.type) !== METHOD.data) return;
      const peer = decodeXorAddress(required(message, ATTR.xorPeerAddress), message.transactionId);
      this.#data.push({ peer, data: required(message, ATTR.data) });
      this.#dataWaiter?.();
      this.#dataWaiter = null;
      return;
    }
    this.#pending.get(message.transactionId.toString('hex'))?.resolve(message);
  }
}

function encode(
  method: number,
  cls: number,
  transactionId: Buffer,
  attributes: [number, Buffer][],
  key?: Buffer,
): { packet: Buffer } {
  const parts: Buffer[] = [];
  for (const [type, value] of attributes) parts.push(attribute(type, value));
  let body = Buffer.concat(parts);
  const type =
    (method & 0x000f) |
    ((method & 0x0070) << 1) |
    ((method & 0x0f80) << 2) |
    ((cls & 1) << 4) |
    ((cls & 2) << 7);
  const header = Buffer.alloc(HEADER);
  header.writeUInt16BE(type, 0);
  header.writeUInt32BE(MAGIC, 4);
  transactionId.copy(header, 8);
  if (key) {
    // The HMAC covers the message with its length already counting the integrity attribute.
    header.writeUInt16BE(body.length + 24, 2);
    const mac = createHmac('sha1', key)
      .update(Buffer.concat([header, body]))
      .digest();
    body = Buffer.concat([body, attribute(ATTR.messageIntegrity, mac)]);
  }
  header.writeUInt16BE(body.length, 2);
  return { packet: Buffer.concat([header, body]) };
}

function attribute(type: number, value: Buffer): Buffer {
  const out = Buffer.alloc(4 + Math.ceil(value.length / 4) * 4);
  out.writeUInt16BE(type, 0);
  out.writeUInt16BE(value.length, 2);
  value.copy(out, 4);
  return out;
}

function decode(packet: Buffer): Message | null {
  if (packet.length < HEADER || packet.readUInt32BE(4) !== MAGIC) return null;
  const length = packet.readUInt16BE(2);
  if (HEADER + length > packet.length) return null;
  const attributes = new Map<number, Buffer>();
  let offset = HEADER;
  while (offset + 4 <= HEADER + length) {
    const type = packet.readUInt16BE(offset);
    const size = packet.readUInt16BE(offset + 2);
    if (!attributes.has(type)) attributes.set(type, packet.subarray(offset + 4, offset + 4 + size));
    offset += 4 + Math.ceil(size / 4) * 4;
  }
  return { type: packet.readUInt16BE(0), transactionId: packet.subarray(8, 20), attributes };
}

function classOf(type: number): number {
  return ((type >> 4) & 1) | ((type >> 7) & 2);
}

function methodOf(type: number): number {
  return (type & 0x000f) | ((type >> 1) & 0x0070) | ((type >> 2) & 0x0f80);
}

function required(message: Message, type: number): Buffer {
  const value = message.attributes.get(type);
  if (!value) throw new Error(`attribute 0x${type.toString(16)} missing from the answer`);
  return value;
}

/** XOR-*-ADDRESS (RFC 8489 section 14.2): port and address XORed with the cookie (and id). */
function encodeXorAddress({ address, port }: Address, transactionId?: Buffer): Buffer {
  const v6 = isIPv6(address);
  const out = Buffer.alloc(v6 ? 20 : 8);
  out[1] = v6 ? 2 : 1;
  out.writeUInt16BE(port ^ (MAGIC >>> 16), 2);
  const raw = v6 ? ipv6Bytes(address) : Buffer.from(address.split('.').map(Number));
  const mask = xorMask(transactionId);
  for (let i = 0; i < raw.length; i++) out[4 + i] = (raw[i] as number) ^ (mask[i] as number);
  return out;
}

function decodeXorAddress(value: Buffer, transactionId: Buffer): Address {
  const v6 = value[1] === 2;
  const port = value.readUInt16BE(2) ^ (MAGIC >>> 16);
  const mask = xorMask(transactionId);
  const raw = Buffer.alloc(v6 ? 16 : 4);
  for (let i = 0; i < raw.length; i++) raw[i] = (value[4 + i] as number) ^ (mask[i] as number);
  const address = v6
    ? Array.from({ length: 8 }, (_, i) => raw.readUInt16BE(i * 2).toString(16)).join(':')
    : [...raw].join('.');
  return { address, port };
}

function xorMask(transactionId: Uint8Array = Buffer.alloc(12)): Buffer {
  const mask = Buffer.alloc(16);
  mask.writeUInt32BE(MAGIC, 0);
  mask.set(transactionId, 4);
  return mask;
}

/** The 16 bytes of an IPv6 address, also in `::` and IPv4-mapped (`::ffff:1.2.3.4`) notation. */
function ipv6Bytes(address: string): Buffer {
  let text = address;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = (v4[1] as string).split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -(v4[1] as string).length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups =
    tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  const out = Buffer.alloc(16);
  for (const [i, group] of groups.entries()) out.writeUInt16BE(Number.parseInt(group, 16), i * 2);
  return out;
}
