/**
 * Which addresses and host names the internet can reach: what start-up and the doctor need
 * to tell a deployment on a public domain from one on localhost, a LAN or a test domain.
 */
import { isIP, isIPv4 } from 'node:net';

// Special-use names (RFC 6761, RFC 8375 and common practice) never resolve on the internet.
const LOCAL_SUFFIXES = [
  '.localhost',
  '.local',
  '.test',
  '.internal',
  '.invalid',
  '.example',
  '.lan',
  '.home.arpa',
];

// IPv4 ranges that are not reachable from the internet: "this network", private, CGNAT,
// loopback, link-local, documentation, benchmarking, multicast and reserved.
const PRIVATE_V4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 3],
];

/** True for an IP address the internet cannot reach (private, loopback, link-local, reserved...). */
export function isPrivateIp(ip: string): boolean {
  if (isIPv4(ip)) {
    const n = v4ToNumber(ip);
    return PRIVATE_V4.some(([base, bits]) => n >>> (32 - bits) === v4ToNumber(base) >>> (32 - bits));
  }
  const v6 = ip.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(v6);
  if (mapped) return isPrivateIp(mapped[1] as string);
  // Unspecified, loopback, unique-local (fc00::/7), link-local (fe80::/10), multicast, documentation.
  return v6 === '::' || v6 === '::1' || /^(f[cd]|fe[89ab]|ff)/.test(v6) || v6.startsWith('2001:db8:');
}

/** True for localhost and loopback addresses: where http is fine for trying the app out. */
export function isLocalhost(hostname: string): boolean {
  const host = unbracket(hostname).toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || host.startsWith('127.');
}

/**
 * True when `hostname` (of PUBLIC_URL) is meant to be reached over the internet: a dotted
 * name outside the special-use domains, or a public IP address.
 */
export function isPublicHost(hostname: string): boolean {
  const host = unbracket(hostname).toLowerCase().replace(/\.$/, '');
  if (isIP(host) !== 0) return !isPrivateIp(host);
  // A single label ("app", "voice") is a name on a LAN or a container network.
  if (!host.includes('.')) return false;
  return !LOCAL_SUFFIXES.some((suffix) => host.endsWith(suffix));
}

function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function v4ToNumber(ip: string): number {
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}
