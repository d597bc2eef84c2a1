/**
 * An impaired participant reaching a deployment that is not on this machine's loopback, without
 * a packet leaving the machine: the "remote" deployment is the api's PublicPeer, a namespace with
 * a public-looking address (11.22.33.N) behind a veth. UDP goes through the relay (delayed), TCP
 * is forwarded and masqueraded by the host, and the host's forwarding is as before afterwards.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PublicPeer } from '../../../api/src/testing/PublicPeer.ts';
import { ImpairedNetwork } from './ImpairedNetwork.ts';
import { run } from './system.ts';
import { median, probe } from './testing/udpProbe.ts';

const TCP_ECHO_PORT = 3481;
/** A TCP echo for the peer's namespace; says "ready" once listening. */
const TCP_ECHO_SCRIPT = `
const net = require('node:net');
net.createServer((socket) => socket.pipe(socket)).listen(${TCP_ECHO_PORT}, process.argv[1], () => console.log('ready'));
`;
/** Sends a line over TCP and prints what comes back. */
const TCP_CLIENT_SCRIPT = `
const net = require('node:net');
const socket = net.connect(Number(process.argv[2]), process.argv[1], () => socket.write('over the forward'));
socket.setTimeout(5000, () => { console.log('timeout'); process.exit(1); });
socket.on('data', (data) => { console.log(String(data)); process.exit(0); });
socket.on('error', (error) => { console.log(error.message); process.exit(1); });
`;

let peer: PublicPeer;
let tcpEcho: ChildProcess;
const forwardingBefore = readFileSync('/proc/sys/net/ipv4/ip_forward', 'utf8');

beforeAll(async () => {
  peer = await PublicPeer.start();
  tcpEcho = spawn(
    'ip',
    ['netns', 'exec', peer.namespace, process.execPath, '-e', TCP_ECHO_SCRIPT, peer.ipv4],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve) => tcpEcho.stdout?.once('data', () => resolve()));
});

afterAll(async () => {
  tcpEcho.kill();
  await peer.close();
});

describe('an impaired network towards a remote deployment', () => {
  it('relays and delays UDP, forwards TCP, and restores the host forwarding when closed', async () => {
    const network = await ImpairedNetwork.create({ delayMs: 40 }, 0, { remote: true });
    try {
      const udp = await probe(
        network.namespace,
        { address: peer.ipv4, port: peer.port },
        {
          count: 50,
          intervalMs: 20,
          bytes: 100,
        },
      );
      expect(udp.received).toBe(50);
      expect(median(udp.rttsMs)).toBeGreaterThan(35);
      const tcp = await run('ip', [
        'netns',
        'exec',
        network.namespace,
        process.execPath,
        '-e',
        TCP_CLIENT_SCRIPT,
        peer.ipv4,
        String(TCP_ECHO_PORT),
      ]);
      expect(tcp.trim()).toBe('over the forward');
    } finally {
      await network.close();
    }
    expect(readFileSync('/proc/sys/net/ipv4/ip_forward', 'utf8')).toBe(forwardingBefore);
  }, 60_000);
});
