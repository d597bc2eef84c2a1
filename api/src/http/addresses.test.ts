import { describe, expect, it } from 'vitest';
import { isLocalhost, isPrivateIp, isPublicHost } from './addresses.ts';

describe('isPublicHost()', () => {
  it.each(['voice.example.com', 'call.example.org.', '203.0.114.7', '8.8.8.8', '[2a00:1450::1]'])(
    'takes %s for a host on the internet',
    (host) => expect(isPublicHost(host)).toBe(true),
  );

  it.each([
    'localhost',
    'app.localhost',
    '127.0.0.1',
    '[::1]',
    'app',
    'voice.test',
    'nas.local',
    'pi.home.arpa',
    '10.1.2.3',
    '172.20.0.4',
    '192.168.1.10',
    '100.64.0.1',
    '169.254.169.254',
    '[fd00::1]',
  ])('takes %s for a local, private or test host', (host) => expect(isPublicHost(host)).toBe(false));
});

describe('isPrivateIp()', () => {
  it.each([
    '10.0.0.5',
    '172.31.255.255',
    '192.168.0.1',
    '127.0.0.53',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    'fe80::1',
    '::ffff:10.0.0.1',
  ])('%s is private', (ip) => expect(isPrivateIp(ip)).toBe(true));
  it.each(['172.32.0.1', '11.0.0.1', '100.128.0.1', '2001:4860::8888', '::ffff:8.8.8.8'])(
    '%s is public',
    (ip) => expect(isPrivateIp(ip)).toBe(false),
  );
});

describe('isLocalhost()', () => {
  it('knows localhost by name and loopback address', () => {
    expect(['localhost', 'LOCALHOST', 'a.localhost', '127.0.0.1', '[::1]'].map(isLocalhost)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['app.test', '10.0.0.1', 'example.com'].map(isLocalhost)).toEqual([false, false, false]);
  });
});
