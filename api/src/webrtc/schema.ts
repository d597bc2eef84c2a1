/**
 * The grammar of the ICE server URLs an operator configures (TURN_URLS, STUN_URLS), checked
 * once at start-up: a typo here would otherwise surface as calls that fail only behind NAT.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { z } from 'zod';

export type IceScheme = 'stun' | 'stuns' | 'turn' | 'turns';

/** One parsed stun:/stuns: (RFC 7064) or turn:/turns: (RFC 7065) URL. */
export interface IceUrl {
  href: string;
  scheme: IceScheme;
  /** A host name, an IPv4 address, or an IPv6 address in brackets. */
  host: string;
  port: number | null;
  /** turn:/turns: only. */
  transport: 'udp' | 'tcp' | null;
}

const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const URL_PATTERN = new RegExp(
  `^(stuns?|turns?):(\\[[0-9A-Fa-f:.]+\\]|${LABEL}(?:\\.${LABEL})*)(?::(\\d{1,5}))?(?:\\?transport=(udp|tcp))?$`,
);
// More would only slow down ICE gathering; it also bounds what a bad value can cost.
const MAX_URLS = 16;

const SYNTAX: Record<IceScheme, string> = {
  stun: 'stun:host[:port]',
  stuns: 'stuns:host[:port]',
  turn: 'turn:host[:port][?transport=udp|tcp]',
  turns: 'turns:host[:port][?transport=udp|tcp]',
};

/** Parses one URL of the given schemes, or returns null. */
export function parseIceUrl(raw: string, schemes: readonly IceScheme[]): IceUrl | null {
  const match = URL_PATTERN.exec(raw);
  if (!match) return null;
  const [, scheme, host = '', port, transport] = match as unknown as [
    string,
    IceScheme,
    string,
    string?,
    string?,
  ];
  if (!schemes.includes(scheme)) return null;
  if (transport && scheme.startsWith('stun')) return null;
  if (host.startsWith('[') ? !isIPv6(host.slice(1, -1)) : /^[\d.]+$/.test(host) && !isIPv4(host)) return null;
  const portNumber = port === undefined ? null : Number(port);
  if (portNumber !== null && (portNumber < 1 || portNumber > 65535)) return null;
  return {
    href: raw,
    scheme,
    host,
    port: portNumber,
    transport: (transport as IceUrl['transport'] | undefined) ?? null,
  };
}

/** A comma-separated list of ICE server URLs of the given schemes, as an environment variable holds it. */
export function iceUrlListSchema(schemes: readonly IceScheme[]) {
  const expected = schemes.map((scheme) => SYNTAX[scheme]).join(' or ');
  return z
    .string()
    .transform((raw) => raw.split(',').map((part) => part.trim()))
    .pipe(
      z
        .array(
          z.string().transform((raw, ctx) => {
            const url = parseIceUrl(raw, schemes);
            if (!url)
              ctx.addIssue({ code: 'custom', message: `"${raw}" is not a URL of the form ${expected}` });
            return url as IceUrl;
          }),
        )
        .max(MAX_URLS, { error: `at most ${MAX_URLS} URLs` }),
    );
}
