/**
 * The compose test's coturn image relays to the internet and to nothing else: the checks of
 * api/src/webrtc/coturnPeers.test.ts, against a container of that image run as
 * docker-compose.yml runs it (host network, coturn/entrypoint.sh on coturn/turnserver.conf as
 * shipped, plus only the test's listening port and relay addresses). The stack's own coturn is
 * not the one checked: its test config lets loopback through for the browsers on 127.0.0.1.
 * The internet is a PublicPeer (a network namespace on this machine with made-up public
 * addresses and a UDP echo); no other address gets a packet.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import {
  allocation,
  askPermissions,
  Coturn,
  canonical,
  deniedRanges,
  echo,
  edges,
  type Family,
  neighbours,
  PublicPeer,
  REFUSED,
  uclient,
} from '@voice/api/testing';
import { DOCKER } from './ComposeProject.ts';
import { COTURN_IMAGE } from './state.ts';

const CONFIG = readFileSync(path.resolve(import.meta.dirname, '../../coturn/turnserver.conf'), 'utf8');
const SECRET = 'Vb7Nq2Lx5Kt9Wr3Hm8Pz1Fc6Jd4Gs0Ye';
const FAMILIES: Family[] = ['ipv4', 'ipv6'];

test.describe.configure({ mode: 'serial' });

let peer: PublicPeer;
let coturn: Coturn;

test.beforeAll(async () => {
  peer = await PublicPeer.start();
  coturn = await Coturn.start({
    secret: SECRET,
    relayIps: [peer.hostIpv4, peer.hostIpv6],
    container: { image: COTURN_IMAGE, docker: DOCKER },
  });
});

test.afterAll(async () => {
  await coturn?.stop();
  await peer?.close();
});

for (const family of FAMILIES) {
  test(`${COTURN_IMAGE} relays to a public ${family} peer (our client and turnutils_uclient)`, async () => {
    const target = { address: family === 'ipv4' ? peer.ipv4 : peer.ipv6, port: peer.port };
    const client = await allocation(coturn, SECRET, family);
    try {
      const answer = await echo(client, target, Buffer.from(`hello ${family} from the image`));
      expect(answer.data.toString()).toBe(`hello ${family} from the image`);
      expect(canonical(answer.peer.address)).toBe(canonical(target.address));
    } finally {
      await client.close();
    }
    const { received, output } = await uclient(coturn, SECRET, family, target);
    expect(received, output).toBeGreaterThan(0);
  });

  test(`${COTURN_IMAGE} refuses ${family} loopback, private, CGNAT, link-local, metadata and mapped peers, and every denied range's ends`, async () => {
    const client = await allocation(coturn, SECRET, family);
    try {
      const refused = REFUSED[family];
      expect(
        await askPermissions(
          coturn,
          client,
          family,
          refused.map(({ peer }) => peer),
        ),
      ).toEqual(refused.map(({ peer, range }) => ({ peer, code: 403, range })));
      const ranges = deniedRanges(CONFIG);
      const granted = await askPermissions(coturn, client, family, neighbours(ranges, family));
      expect(granted.filter(({ code }) => code !== null)).toEqual([]);
      const ends = await askPermissions(coturn, client, family, edges(ranges, family));
      expect(ends.filter(({ code }) => code !== 403)).toEqual([]);
    } finally {
      await client.close();
    }
  });
}
