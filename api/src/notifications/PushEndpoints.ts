/**
 * Which push endpoints the API will send to: https URLs of public hosts only, so that a
 * browser's "subscription" cannot turn the server into a forwarder of requests to its own
 * network. The host's addresses are checked when a browser subscribes and again on every
 * connection (the request's own DNS lookup), so a name that later resolves inward is refused.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { AppError } from '../errors.ts';
import { isPublicAddress } from '../http/addresses.ts';

/** Longest endpoint accepted (push services' URLs are a few hundred characters). */
export const PUSH_ENDPOINT_MAX_CHARS = 2048;

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
