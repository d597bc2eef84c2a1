/**
 * Test tools for the impaired networks: a UDP echo on the host's loopback (where the media server
 * would be), and a probe that runs inside a namespace, sends numbered datagrams to the echo
 * through the impaired path and reports what came back and how long each took.
 */
import dgram from 'node:dgram';
import { run } from '../system.ts';

export interface Echo {
  port: number;
  close(): void;
}

export function startEcho(): Promise<Echo> {
  return new Promise((resolve) => {
    const socket = dgram.createSocket('udp4');
    socket.on('message', (data, from) => socket.send(data, from.port, from.address));
    socket.bind(0, '127.0.0.1', () => resolve({ port: socket.address().port, close: () => socket.close() }));
  });
}

export interface ProbeResult {
  sent: number;
  received: number;
  /** Round-trip times of the datagrams that came back, ms, in the order sent. */
  rttsMs: number[];
  /** Payload bytes received and the time from the first send to the last reply, ms. */
  bytesReceived: number;
  spanMs: number;
}

export interface ProbeOptions {
  count: number;
  intervalMs: number;
  bytes: number;
  /** How long to wait for late replies after the last send, ms. */
  drainMs?: number;
}

/** Runs in the namespace; its 127.0.0.1 leads to the host's loopback through the impairment. */
const PROBE_SCRIPT = `
const dgram = require('node:dgram');
const host = process.argv[1];
const [port, count, intervalMs, bytes, drainMs] = process.argv.slice(2).map(Number);
const socket = dgram.createSocket('udp4');
const sentAt = new Map();
const rtts = [];
let received = 0, bytesReceived = 0, first = 0, last = 0, i = 0;
socket.on('message', (data) => {
  const n = data.readUInt32BE(0);
  const at = sentAt.get(n);
  if (at === undefined) return;
  sentAt.delete(n);
  received++; bytesReceived += data.length; last = performance.now();
  rtts.push(last - at);
});
socket.bind(0, () => {
  first = performance.now();
  const timer = setInterval(() => {
    if (i >= count) {
      clearInterval(timer);
      setTimeout(() => {
        console.log(JSON.stringify({ sent: count, received, rttsMs: rtts, bytesReceived, spanMs: last - first }));
        process.exit(0);
      }, drainMs);
      return;
    }
    const data = Buffer.alloc(bytes);
    data.writeUInt32BE(i, 0);
    sentAt.set(i, performance.now());
    socket.send(data, port, host);
    i++;
  }, intervalMs);
});
`;

/** Probes the echo at `target` (the host's loopback echo by default) from inside `namespace`. */
export async function probe(
  namespace: string,
  target: { address?: string; port: number },
  options: ProbeOptions,
): Promise<ProbeResult> {
  const numbers = [target.port, options.count, options.intervalMs, options.bytes, options.drainMs ?? 1000];
  const args = [target.address ?? '127.0.0.1', ...numbers.map(String)];
  const output = await run('ip', ['netns', 'exec', namespace, process.execPath, '-e', PROBE_SCRIPT, ...args]);
  return JSON.parse(output) as ProbeResult;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}
