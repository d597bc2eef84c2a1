import type { NetworkInterfaceInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { webRtcListenIps } from './listenIps.ts';

function iface(address: string, family: 'IPv4' | 'IPv6', internal: boolean): NetworkInterfaceInfo {
  const common = { address, internal, mac: '00:00:00:00:00:00', cidr: null };
  return family === 'IPv4'
    ? { ...common, family, netmask: '255.0.0.0' }
    : { ...common, family, netmask: 'ffff::', scopeid: 0 };
}

const interfaces = {
  lo: [iface('127.0.0.1', 'IPv4', true), iface('::1', 'IPv6', true)],
  eth0: [
    iface('192.168.1.20', 'IPv4', false),
    iface('fe80::1', 'IPv6', false),
    iface('2001:db8::20', 'IPv6', false),
  ],
};

describe('webRtcListenIps()', () => {
  it('webRtcListenIps() listens on the wildcard and announces the announced address', () => {
    expect(webRtcListenIps({ listenIp: '0.0.0.0', announcedIp: '203.0.113.7' }, interfaces)).toEqual([
      { ip: '0.0.0.0', announcedIp: '203.0.113.7' },
    ]);
  });

  it('webRtcListenIps() uses a specific listen address as is', () => {
    expect(webRtcListenIps({ listenIp: '127.0.0.1', announcedIp: undefined }, interfaces)).toEqual([
      { ip: '127.0.0.1' },
    ]);
  });

  it('webRtcListenIps() expands 0.0.0.0 into every IPv4 address, loopback last', () => {
    expect(webRtcListenIps({ listenIp: '0.0.0.0', announcedIp: undefined }, interfaces)).toEqual([
      { ip: '192.168.1.20' },
      { ip: '127.0.0.1' },
    ]);
  });

  it('webRtcListenIps() expands :: into IPv6 addresses without link-local ones', () => {
    expect(webRtcListenIps({ listenIp: '::', announcedIp: undefined }, interfaces)).toEqual([
      { ip: '2001:db8::20' },
      { ip: '::1' },
    ]);
  });

  it('webRtcListenIps() falls back to loopback when no interface has an address', () => {
    expect(webRtcListenIps({ listenIp: '0.0.0.0', announcedIp: undefined }, {})).toEqual([
      { ip: '127.0.0.1' },
    ]);
  });
});
