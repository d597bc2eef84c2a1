/**
 * coturn/turnserver.conf as shipped relays to the internet and to nothing else. The internet is a
 * PublicPeer: a network namespace on this machine with made-up public addresses (11.22.33.N,
 * 2a00:1122:3344::N) and a UDP echo, routed through a veth whose host end is the relay's address.
 * Only that peer ever gets a packet: every other address is only asked about with a
 * CreatePermission, which coturn refuses (403) or grants without sending anything to it. Needs
 * root and iproute2 (CI runs as root). e2e/compose/coturnPeers.spec.ts runs the same checks on
 * the compose test's coturn image.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Coturn } from '../testing/Coturn.ts';
import { PublicPeer } from '../testing/PublicPeer.ts';
import {
  allocation,
  askPermissions,
  canonical,
  deniedRanges,
  echo,
  edges,
  type Family,
  neighbours,
  REFUSED,
  uclient,
} from '../testing/relayPeers.ts';

const CONFIG = readFileSync(
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../coturn/turnserver.conf'),
  'utf8',
);
const SECRET = 'Hq3Zt8Wm1Ky6Pv0Rc5Xn9Bd2Lf7Js4Ga';
const FAMILIES: Family[] = ['ipv4', 'ipv6'];

describe('coturn/turnserver.conf as shipped, with a public peer in a network namespace', () => {
  let peer: PublicPeer;
  let coturn: Coturn;
  beforeAll(async () => {
    peer = await PublicPeer.start();
    // The shipped config plus the test's listening port, secret and relay addresses: the host end
    // of the veth, from which the peer is reachable (a relay on loopback could not send to it).
    coturn = await Coturn.start({ secret: SECRET, relayIps: [peer.hostIpv4, peer.hostIpv6] });
  }, 60_000);
  afterAll(async () => {
    await coturn?.stop();
    await peer?.close();
  });

  const peerAddress = (family: Family) => ({
    address: family === 'ipv4' ? peer.ipv4 : peer.ipv6,
    port: peer.port,
  });

  it.each(FAMILIES)('relays to a public %s peer, whose echo answers through the relay', async (family) => {
    const client = await allocation(coturn, SECRET, family);
    try {
      const sent = Buffer.from(`hello ${family} internet`);
      const answer = await echo(client, peerAddress(family), sent);
      expect(answer.data.toString()).toBe(sent.toString());
      expect({ ...answer.peer, address: canonical(answer.peer.address) }).toEqual({
        address: canonical(peerAddress(family).address),
        port: peer.port,
      });
    } finally {
      await client.close();
    }
  });

  it.each(FAMILIES)('relays to the public %s peer for turnutils_uclient too', async (family) => {
    const { sent, received, output } = await uclient(coturn, SECRET, family, peerAddress(family));
    expect(sent, output).toBeGreaterThan(0);
    // A datagram may be lost on a busy machine; none comes back when the relay refuses.
    expect(received, output).toBeGreaterThan(0);
  });

  it.each(FAMILIES)(
    'refuses %s loopback, unspecified, mapped, private, CGNAT, link-local and metadata peers (403), naming the range',
    async (family) => {
      const refused = [
        ...REFUSED[family],
        // This deployment's own address (the relay's, on the veth), and the public peer spelt as
        // an IPv4-mapped address, a way around the IPv4 list.
        family === 'ipv4'
          ? { peer: peer.hostIpv4, range: '198.18.0.0-198.19.255.255' }
          : { peer: `::ffff:${peer.ipv4}`, range: '::ffff:0.0.0.0-::ffff:255.255.255.255' },
      ];
      const client = await allocation(coturn, SECRET, family);
      try {
        const answers = await askPermissions(
          coturn,
          client,
          family,
          refused.map(({ peer }) => peer),
        );
        expect(answers).toEqual(refused.map(({ peer, range }) => ({ peer, code: 403, range })));
      } finally {
        await client.close();
      }
    },
  );

  it.each(FAMILIES)(
    'lets %s addresses just outside every denied range through, and refuses the first and last of each',
    async (family) => {
      const ranges = deniedRanges(CONFIG);
      const outside = neighbours(ranges, family);
      expect(outside.length).toBeGreaterThan(family === 'ipv4' ? 10 : 15);
      const client = await allocation(coturn, SECRET, family);
      try {
        const granted = await askPermissions(coturn, client, family, outside);
        expect(granted.filter(({ code }) => code !== null)).toEqual([]);
        const ends = await askPermissions(coturn, client, family, edges(ranges, family));
        expect(ends.filter(({ code }) => code !== 403)).toEqual([]);
      } finally {
        await client.close();
      }
    },
  );
});

describe("TURN_DENIED_PEER_IPS: the deployment's own public addresses, refused on top of the shipped list", () => {
  let peer: PublicPeer;
  let coturn: Coturn;
  beforeAll(async () => {
    peer = await PublicPeer.start();
    coturn = await Coturn.start({
      secret: SECRET,
      relayIps: [peer.hostIpv4, peer.hostIpv6],
      env: { TURN_DENIED_PEER_IPS: `${peer.ipv4}/24,${peer.ipv6}/64` },
    });
  }, 60_000);
  afterAll(async () => {
    await coturn?.stop();
    await peer?.close();
  });

  it.each(FAMILIES)(
    'refuses the %s peer in those blocks, naming the range written from the block',
    async (family) => {
      const block = peer.ipv4.replace(/\.\d+$/, '');
      const [address, range, next] =
        family === 'ipv4'
          ? [peer.ipv4, `${block}.0-${block}.255`, '11.22.34.1']
          : [
              peer.ipv6,
              '2a00:1122:3344:0:0:0:0:0-2a00:1122:3344:0:ffff:ffff:ffff:ffff',
              '2a00:1122:3344:1::1',
            ];
      const client = await allocation(coturn, SECRET, family);
      try {
        // Next to the block is still the internet (a permission only: nothing is sent to it).
        expect(await askPermissions(coturn, client, family, [address, next])).toEqual([
          { peer: address, code: 403, range },
          { peer: next, code: null, range: null },
        ]);
      } finally {
        await client.close();
      }
    },
  );

  it('turnutils_uclient gets nothing through to it', async () => {
    const { received, output } = await uclient(coturn, SECRET, 'ipv4', {
      address: peer.ipv4,
      port: peer.port,
    });
    expect(received, output).toBe(0);
    expect(output).toMatch(/403/);
  });
});
