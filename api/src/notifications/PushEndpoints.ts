/**
 * Which push endpoints the API will send to: https URLs of public hosts only, so that a
 * browser's "subscription" cannot turn the server into a forwarder of requests to its own
 * network. The host's addresses are checked when a browser subscribes and again on every
 * connection (the request's own DNS lookup), so a name that later resolves inward is refused.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { AppError } from '../errors.ts';

/** Longest endpoint accepted (push services' URLs are a few hundred characters). */
export const PUSH_ENDPOINT_MAX_CHARS = 2048;

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

export class PushEndpoints {
  readonly #allowed: ReadonlySet<string>;

  /** `allowedHosts`: PUSH_ALLOWED_HOSTS, the test-only `host:port` list let through as they are. */
  constructor(allowedHosts: readonly string[]) {
    this.#allowed = new Set(allowedHosts);
  }

  /** The endpoint as a URL when it may be pushed to; otherwise PUSH_ENDPOINT_REFUSED. */
  async check(endpoint: string): Promise<URL> {
    const url = this.parse(endpoint);
    if (!this.#isAllowListed(url)) await resolvePublic(url.hostname);
    return url;
  }

  /**
   * The DNS lookup for the push request to `url`: refuses a host that now resolves to a
   * non-public address, at the moment of connecting (no window for a rebinding name).
   */
  lookupFor(url: URL): LookupFunction | undefined {
    if (this.#isAllowListed(url)) return undefined;
    return (hostname, options, callback) => {
      resolvePublic(hostname).then(
        (addresses) => {
          if (options.all) callback(null, addresses);
          else {
            const first = addresses[0] as LookupAddress;
            callback(null, first.address, first.family);
          }
        },
        (error: Error) => callback(error as NodeJS.ErrnoException, ''),
      );
    };
  }

  /** The endpoint as a URL when its form may be pushed to (no DNS); otherwise PUSH_ENDPOINT_REFUSED. */
  parse(endpoint: string): URL {
    if (endpoint.length > PUSH_ENDPOINT_MAX_CHARS) throw refused();
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      throw refused();
    }
    if (url.username || url.password) throw refused();
    if (url.protocol === 'https:' && !isIP(unbracket(url.hostname))) return url;
    if ((url.protocol === 'https:' || url.protocol === 'http:') && this.#isAllowListed(url)) return url;
    throw refused();
  }

  #isAllowListed(url: URL): boolean {
    if (this.#allowed.size === 0) return false;
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    return this.#allowed.has(`${url.hostname.toLowerCase()}:${port}`);
  }
}

/** Every address of `hostname`, when all are public; PUSH_ENDPOINT_REFUSED otherwise. */
async function resolvePublic(hostname: string): Promise<LookupAddress[]> {
  const host = unbracket(hostname);
  if (isIP(host)) throw refused();
  const addresses = await new Promise<LookupAddress[]>((resolve, reject) =>
    dnsLookup(host, { all: true }, (error, found) => (error ? reject(error) : resolve(found))),
  ).catch(() => {
    throw refused();
  });
  if (addresses.length === 0 || !addresses.every((a) => isPublicAddress(a.address))) throw refused();
  return addresses;
}

function unbracket(hostname: string): string {
  return hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
}

function refused(): AppError {
  return new AppError('PUSH_ENDPOINT_REFUSED');
}
