/**
 * The thread behind Ears (rtpLoad.ts): loopback UDP sockets that the load's consumers send to,
 * connected as a browser's transport when asked (dtls.ts), and either counted (RTP packets, first
 * and last arrival of each SSRC, timed here so a busy main thread does not delay them) or, for a
 * sink, left unread once sealed: the thread blocks, the small receive buffers fill, and the kernel
 * drops every later packet on arrival at no cost to anyone (counted in /proc/net/udp).
 */
import { createSocket, type Socket } from 'node:dgram';
import { readlinkSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { type BotCertificate, connectTransport, datagramKind, type WebRtcRemote } from './dtls.ts';

/** What the thread is started with. */
export interface EarsThreadData {
  /** Count what arrives (Ears), or only connect and then seal (a sink). */
  counting: boolean;
  certificate: BotCertificate | null;
  /** Set to 1 (and notified) to wake a sealed thread and end it. */
  stop: SharedArrayBuffer;
}

/** A request to the thread and its answer, matched by `id`. */
export type EarsRequest =
  | { id: number; op: 'open' | 'count' | 'heard' | 'mark' | 'thread' | 'seal' | 'close' }
  | { id: number; op: 'secure'; port: number; remote: WebRtcRemote };
export type EarsReply = { id: number; value?: unknown; error?: string };

interface Ear {
  socket: Socket;
  received: number;
  firsts: Map<number, number>;
  lasts: Map<number, number>;
  /** Takes STUN and DTLS while the transport connects. */
  handshake: ((message: Buffer) => void) | null;
}

const { counting, certificate, stop } = workerData as EarsThreadData;
const port = parentPort;
if (!port) throw new Error('ears.thread.ts runs as a worker thread');
const ears = new Map<number, Ear>();
let received = 0;

function onMessage(ear: Ear, message: Buffer): void {
  const kind = datagramKind(message);
  if (kind !== 'rtp') {
    ear.handshake?.(message);
    return;
  }
  // RTCP (second byte 192-223, where RTP has marker and payload type) is not audio.
  if (!counting || message.length < 12 || ((message[1] ?? 0) >= 192 && (message[1] ?? 0) <= 223)) return;
  received++;
  ear.received++;
  const ssrc = message.readUInt32BE(8);
  const at = performance.timeOrigin + performance.now();
  if (!ear.firsts.has(ssrc)) ear.firsts.set(ssrc, at);
  ear.lasts.set(ssrc, at);
}

function open(): Promise<number> {
  // Counted sockets read at 100,000 packets a second; a sink's holds a DTLS flight until sealed.
  const socket = createSocket({ type: 'udp4', recvBufferSize: counting ? 4 * 1024 * 1024 : 256 * 1024 });
  const ear: Ear = { socket, received: 0, firsts: new Map(), lasts: new Map(), handshake: null };
  socket.on('message', (message) => onMessage(ear, message));
  return new Promise((resolve) =>
    socket.bind(0, '127.0.0.1', () => {
      ears.set(socket.address().port, ear);
      resolve(socket.address().port);
    }),
  );
}

async function secure(earPort: number, remote: WebRtcRemote): Promise<number> {
  const ear = ears.get(earPort);
  if (!ear) throw new Error(`no socket on port ${earPort}`);
  if (!certificate) throw new Error('no certificate: these ears were opened for plain RTP');
  const { receive, done } = connectTransport(ear.socket, remote, certificate);
  ear.handshake = receive;
  try {
    return await done;
  } finally {
    ear.handshake = null;
  }
}

function close(): void {
  for (const ear of ears.values()) ear.socket.close();
  ears.clear();
  port?.close();
}

const answers: Record<string, (request: EarsRequest) => unknown> = {
  open: () => open(),
  secure: (request) => request.op === 'secure' && secure(request.port, request.remote),
  count: () => received,
  heard: () =>
    [...ears].map(([earPort, ear]) => ({
      port: earPort,
      received: ear.received,
      firsts: ear.firsts,
      lasts: ear.lasts,
    })),
  mark: () => {
    for (const ear of ears.values()) {
      ear.received = 0;
      ear.firsts = new Map();
      ear.lasts = new Map();
    }
    return 0;
  },
  thread: () => `/proc/${readlinkSync('/proc/thread-self')}`,
  ports: () => [...ears.keys()],
};

port.on('message', async (request: EarsRequest) => {
  if (request.op === 'close') return close();
  if (request.op === 'seal') {
    // Sealed, a socket keeps almost nothing: the kernel drops what arrives.
    for (const ear of ears.values()) ear.socket.setRecvBufferSize(1);
    port.postMessage({ id: request.id, value: [...ears.keys()] } satisfies EarsReply);
    // Blocks this thread's loop: nothing reads the sockets from now on. Woken only to end.
    const flag = new Int32Array(stop);
    while (Atomics.load(flag, 0) === 0) Atomics.wait(flag, 0, 0, 1000);
    return close();
  }
  try {
    const answer = answers[request.op];
    if (!answer) throw new Error(`unknown request ${request.op}`);
    port.postMessage({ id: request.id, value: await answer(request) } satisfies EarsReply);
  } catch (error) {
    port.postMessage({ id: request.id, error: (error as Error).message } satisfies EarsReply);
  }
});
