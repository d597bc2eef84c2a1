/**
 * Which addresses and host names the internet can reach: what push endpoints must resolve to,
 * and what start-up and the doctor need to tell a deployment on a public domain from one on
 * localhost, a LAN or a test domain.
 */
import { BlockList, isIP } from 'node:net';

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

// Loopback, private, shared (CGNAT), link-local, multicast, documentation, benchmarking and
// reserved ranges (IANA special-purpose registries), and IPv6 forms that embed IPv4. One list
// per family: a BlockList also matches IPv4 addresses against its IPv4-mapped IPv6 rules.
const NOT_PUBLIC_V4 = new BlockList();
const NOT_PUBLIC_V6 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NOT_PUBLIC_V4.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback, IPv4-compatible
  ['::ffff:0:0', 96], // IPv4-mapped
  ['64:ff9b::', 96], // NAT64
  ['64:ff9b:1::', 48],
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments, Teredo
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local
  ['ff00::', 8], // multicast
] as const)
  NOT_PUBLIC_V6.addSubnet(network, prefix, 'ipv6');

/** Whether `address` (an IP literal) is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return family === 4 ? !NOT_PUBLIC_V4.check(address, 'ipv4') : !NOT_PUBLIC_V6.check(address, 'ipv6');
}

/** True for an IP address the internet cannot reach (private, loopback, link-local, reserved...). */
export function isPrivateIp(ip: string): boolean {
  // An IPv4-mapped IPv6 address is as reachable as the IPv4 address inside it.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return isPrivateIp(mapped[1] as string);
  return isIP(ip) !== 0 && !isPublicAddress(ip);
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
