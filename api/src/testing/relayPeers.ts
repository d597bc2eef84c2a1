/**
 * Whom coturn/turnserver.conf lets a relay reach, asked of a running coturn: the same checks for
 * the host's coturn (api/src/webrtc/coturnPeers.test.ts) and for the compose image's
 * (e2e/compose/coturnPeers.spec.ts). Only PublicPeer's addresses ever get a packet; every other
 * address is only asked about with a CreatePermission, which coturn answers (or refuses) without
 * sending anything to it.
 */
import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import { promisify } from 'node:util';
import type { Coturn } from './Coturn.ts';
import { type Address, TurnClient, TurnError } from './TurnClient.ts';

const run = promisify(execFile);

export type Family = 'ipv4' | 'ipv6';

/** A peer coturn must refuse, and the `denied-peer-ip` range it names (null: a built-in check). */
export interface Refusal {
  peer: string;
  range: string | null;
}

const MAPPED = '::ffff:0.0.0.0-::ffff:255.255.255.255';

/**
 * The list (loopback, unspecified, mapped loopback, private, CGNAT, link-local and cloud
 * metadata) and more of each kind; coturn refuses loopback, 0.0.0.0/8, :: and multicast before
 * it reads the ranges, so it names none for them.
 */
export const REFUSED: Record<Family, Refusal[]> = {
  ipv4: [
    { peer: '127.0.0.1', range: null },
    { peer: '0.0.0.0', range: null },
    { peer: '10.0.0.1', range: '10.0.0.0-10.255.255.255' },
    { peer: '172.17.0.1', range: '172.16.0.0-172.31.255.255' },
    { peer: '192.168.1.1', range: '192.168.0.0-192.168.255.255' },
    { peer: '100.64.0.1', range: '100.64.0.0-100.127.255.255' },
    { peer: '169.254.169.254', range: '169.254.0.0-169.254.255.255' },
    { peer: '224.0.0.1', range: null },
  ],
  ipv6: [
    { peer: '::1', range: null },
    { peer: '::', range: null },
    { peer: '::ffff:127.0.0.1', range: MAPPED },
    { peer: '::ffff:169.254.169.254', range: MAPPED },
    // IPv4-compatible with a last byte of 0, which `::1-::ffff:ffff` would let through: coturn
    // compares byte by byte, and 0 is below that range's last byte.
    { peer: '::a00:0', range: '::1.0.0.0-::255.255.255.255' },
    { peer: '::100', range: '::0.0.1.0-::0.0.255.255' },
    { peer: '64:ff9b::a9fe:a9fe', range: '64:ff9b::-64:ff9b::ffff:ffff' },
    { peer: 'fd00::1', range: 'fc00::-fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff' },
    // A cloud's IPv6 metadata service (AWS's), unique-local like the rest of fc00::/7.
    { peer: 'fd00:ec2::254', range: 'fc00::-fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff' },
    { peer: 'fe80::1', range: 'fe80::-feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff' },
    { peer: 'ff02::1', range: null },
  ],
};

/** A `denied-peer-ip` line of a config, as numbers. */
export interface DeniedRange {
  text: string;
  family: Family;
  start: bigint;
  end: bigint;
}

/** The `denied-peer-ip` ranges of a coturn config file's text. */
export function deniedRanges(config: string): DeniedRange[] {
  return config
    .split('\n')
    .filter((line) => line.startsWith('denied-peer-ip='))
    .map((line) => {
      const text = line.slice('denied-peer-ip='.length).trim();
      const [from = '', to = from] = text.split('-');
      const start = parseIp(from);
      const end = parseIp(to);
      if (start.family !== end.family) throw new Error(`a range across families: ${text}`);
      return { text, family: start.family, start: start.value, end: end.value };
    });
}

/**
 * Addresses the config must let through, and whose every neighbour matters: the address just
 * before and just after each denied range, where neither denied nor refused by coturn itself.
 * A range coturn reads wider than written (as it read `::-::ffff:ffff`) refuses some of them.
 */
export function neighbours(ranges: DeniedRange[], family: Family): string[] {
  const max = family === 'ipv4' ? (1n << 32n) - 1n : (1n << 128n) - 1n;
  const mine = ranges.filter((range) => range.family === family);
  const found = new Set<string>();
  for (const range of mine) {
    for (const value of [range.start - 1n, range.end + 1n]) {
      if (value < 0n || value > max) continue;
      if (mine.some((other) => other.start <= value && value <= other.end)) continue;
      const address = formatIp(family, value);
      if (!refusedByCoturn(family, value)) found.add(address);
    }
  }
  return [...found];
}

/** The first and last address of each denied range: all refused. */
export function edges(ranges: DeniedRange[], family: Family): string[] {
  return [
    ...new Set(
      ranges
        .filter((range) => range.family === family)
        .flatMap((range) => [formatIp(family, range.start), formatIp(family, range.end)]),
    ),
  ];
}

/** One allocation on `coturn`, for a test's permissions and datagrams; close() frees it. */
export async function allocation(coturn: Coturn, secret: string, family: Family): Promise<TurnClient> {
  const username = `${Math.floor(Date.now() / 1000) + 600}:00000000-0000-4000-8000-0000000000ee`;
  const password = createHmac('sha1', secret).update(username).digest('base64');
  const client = await TurnClient.connect(coturn.address(family));
  try {
    await client.allocate({ username, password, family });
  } catch (error) {
    await client.close();
    throw error;
  }
  return client;
}

/** What coturn answered to a CreatePermission for `peer`, and why. */
export interface Answer {
  peer: string;
  /** null: granted; 403: a denied peer. */
  code: number | null;
  /** The `denied-peer-ip` range coturn's log names for the refusal (null: none). */
  range: string | null;
}

/** A peer in a denied range, asked for last: once coturn's log names it, it names every earlier one. */
const MARKER: Record<Family, string> = { ipv4: '10.99.99.99', ipv6: 'fd99::99' };

/** Asks coturn for a permission for each of `peers` on `client`'s allocation; nothing is sent to them. */
export async function askPermissions(
  coturn: Coturn,
  client: TurnClient,
  family: Family,
  peers: string[],
): Promise<Answer[]> {
  const codes: (number | null)[] = [];
  for (const peer of peers) codes.push(await permissionError(client, peer));
  const marker = MARKER[family];
  if ((await permissionError(client, marker)) !== 403) throw new Error(`coturn let ${marker} through`);
  const deadline = Date.now() + 10_000;
  while (!namedRange(coturn.output, marker)) {
    if (Date.now() > deadline)
      throw new Error(`coturn logged no refusal of ${marker}:\n${coturn.output.slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return peers.map((peer, i) => {
    const code = codes[i] ?? null;
    return { peer, code, range: code === 403 ? namedRange(coturn.output, peer) : null };
  });
}

async function permissionError(client: TurnClient, peer: string): Promise<number | null> {
  try {
    await client.createPermission(peer);
    return null;
  } catch (error) {
    if (error instanceof TurnError) return error.code;
    throw error;
  }
}

/** Sends `data` through the relay to `peer` and returns what comes back (an echo's answer). */
export async function echo(client: TurnClient, peer: Address, data: Buffer) {
  await client.createPermission(peer.address);
  client.send(peer, data);
  return client.receive(10_000);
}

/**
 * turnutils_uclient, coturn's own client, through `coturn` to `peer` (the check an operator runs):
 * how many datagrams it sent and how many came back.
 */
export async function uclient(coturn: Coturn, secret: string, family: Family, peer: Address) {
  const { stdout, stderr } = await run(
    'turnutils_uclient',
    [
      ...['-W', secret, '-p', String(coturn.port), '-e', peer.address, '-r', String(peer.port)],
      // Five messages, no RTCP companion allocation, a relay of the peer's family.
      ...['-n', '5', '-c', family === 'ipv6' ? '-x' : '-X', coturn.address(family).address],
    ],
    { timeout: 60_000 },
  ).catch((error: { stdout?: string; stderr?: string; message: string }) => ({
    stdout: error.stdout ?? '',
    stderr: `${error.stderr ?? ''}\n${error.message}`,
  }));
  const counts = /start_mclient: tot_send_msgs=(\d+), tot_recv_msgs=(\d+)/.exec(stdout);
  return {
    sent: Number(counts?.[1] ?? 0),
    received: Number(counts?.[2] ?? 0),
    output: `${stdout}\n${stderr}`,
  };
}

/**
 * The range coturn named when it refused `peer`: it logs "A peer IP … denied in the range: …",
 * with the address as inet_ntop writes it (::a00:0 as ::10.0.0.0). coturn refuses loopback,
 * 0.0.0.0/8, :: and multicast before it reads the ranges, and names none for them.
 */
function namedRange(output: string, peer: string): string | null {
  const wanted = canonical(peer);
  let range: string | null = null;
  // The last line for the peer: the answer just given.
  for (const match of output.matchAll(/A peer IP (\S+) denied in the range: (\S+)/g)) {
    if (canonical(match[1] as string) === wanted) range = match[2] as string;
  }
  return range;
}

/** An address in one spelling (IPv6 uncompressed), to compare two spellings of it. */
export function canonical(address: string): string {
  const { family, value } = parseIp(address);
  return formatIp(family, value);
}

/** What coturn 4.6 refuses before it reads any range: loopback, 0.0.0.0/8 and ::, multicast. */
function refusedByCoturn(family: Family, value: bigint): boolean {
  if (family === 'ipv4') {
    const first = Number(value >> 24n);
    return first === 0 || first === 127 || first >= 224;
  }
  return value === 0n || value === 1n || value >> 120n === 0xffn;
}

function parseIp(text: string): { family: Family; value: bigint } {
  if (isIPv4(text)) return { family: 'ipv4', value: ipv4Value(text) };
  if (!isIPv6(text)) throw new Error(`not an IP address: ${text}`);
  // A dotted IPv4 tail (::ffff:1.2.3.4) as its two groups.
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  const hex = dotted
    ? `${dotted[1]}${(ipv4Value(dotted[2] as string) >> 16n).toString(16)}:${(ipv4Value(dotted[2] as string) & 0xffffn).toString(16)}`
    : text;
  const [head = '', tail] = hex.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups =
    tail === undefined
      ? headGroups
      : [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return { family: 'ipv6', value: groups.reduce((sum, group) => (sum << 16n) + BigInt(`0x${group}`), 0n) };
}

function ipv4Value(text: string): bigint {
  return text.split('.').reduce((sum, octet) => (sum << 8n) + BigInt(octet), 0n);
}

function formatIp(family: Family, value: bigint): string {
  if (family === 'ipv4') {
    return [24n, 16n, 8n, 0n].map((shift) => (value >> shift) & 0xffn).join('.');
  }
  const groups = [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((shift) =>
    ((value >> shift) & 0xffffn).toString(16),
  );
  return groups.join(':');
}
