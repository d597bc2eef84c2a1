import { type NetworkInterfaceInfo, networkInterfaces } from 'node:os';
import type { MediaConfig } from './config.ts';
import type { TransportListenIp } from './types.ts';

type Interfaces = NodeJS.Dict<NetworkInterfaceInfo[]>;

const UNSPECIFIED = new Set(['0.0.0.0', '::']);

/**
 * The `listenIps` for a WebRtcTransport under this config.
 *
 * mediasoup puts the listen address in its ICE candidates unless an announced address is given,
 * and a candidate for 0.0.0.0 or :: is useless to a browser. So with an unspecified listen address
 * and nothing announced (the zero-config default), the transport listens on each address of this
 * machine instead, non-loopback first: browsers on the LAN and on this machine can then connect
 * without any setting. Behind NAT or in a container, set MEDIA_ANNOUNCED_IP.
 * Interfaces are read per call because addresses can change while the server runs.
 */
export function webRtcListenIps(
  config: Pick<MediaConfig, 'listenIp' | 'announcedIp'>,
  interfaces: Interfaces = networkInterfaces(),
): TransportListenIp[] {
  if (config.announcedIp !== undefined) return [{ ip: config.listenIp, announcedIp: config.announcedIp }];
  if (!UNSPECIFIED.has(config.listenIp)) return [{ ip: config.listenIp }];

  const family = config.listenIp === '::' ? 'IPv6' : 'IPv4';
  const addresses = Object.values(interfaces)
    .flatMap((list) => list ?? [])
    // IPv6 link-local addresses need a zone id that ICE candidates cannot carry.
    .filter((info) => info.family === family && !(family === 'IPv6' && info.address.startsWith('fe80:')))
    .sort((a, b) => Number(a.internal) - Number(b.internal))
    .map((info) => info.address);
  const unique = [...new Set(addresses)];
  if (unique.length === 0) return [{ ip: family === 'IPv6' ? '::1' : '127.0.0.1' }];
  return unique.map((ip) => ({ ip }));
}
