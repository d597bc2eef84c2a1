/**
 * The credentials against a real coturn (Debian's), and coturn/ as shipped: its entrypoint, its
 * deny list and its loopback relay for tests. Every server listens on 127.0.0.1 and ::1 only.
 * Refused peers are refused by coturn's CreatePermission check: no packet is ever sent to an
 * address other than 127.0.0.1 and ::1.
 */
import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type TurnCredentialsResponse, WEBRTC_ROUTES } from '@voice/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Coturn } from '../testing/Coturn.ts';
import { deniedRanges } from '../testing/relayPeers.ts';
import { signUp, TestServer } from '../testing/TestServer.ts';
import { TurnClient, TurnError } from '../testing/TurnClient.ts';

const COTURN_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../coturn');
const SECRET = 'p7Wc2Yx9Qm4Tn8Lr1Vb6Kd3Hs0Fj5GzA4eR8tU2';
const sign = (username: string, secret = SECRET) =>
  createHmac('sha1', secret).update(username).digest('base64');
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The refusal coturn gives a peer on its deny list. */
async function expectForbidden(client: TurnClient, peer: string): Promise<void> {
  const error = await client.createPermission(peer).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, `a permission for ${peer}`).toBeInstanceOf(TurnError);
  expect((error as TurnError).code, `a permission for ${peer}`).toBe(403);
}

async function allocationError(coturn: Coturn, username: string, password: string): Promise<unknown> {
  const client = await TurnClient.connect(coturn.address());
  try {
    await client.allocate({ username, password });
    return null;
  } catch (error) {
    return error;
  } finally {
    await client.close();
  }
}

describe('credentials from GET /api/webrtc/turn-credentials on a real coturn', () => {
  let coturn: Coturn;
  let api: TestServer;
  beforeAll(async () => {
    coturn = await Coturn.start({ secret: SECRET });
    api = await TestServer.start({ TURN_SECRET: SECRET, TURN_URLS: coturn.turnUrls });
  });
  afterAll(async () => {
    await api?.close();
    await coturn?.stop();
  });

  async function issued() {
    const { token, user } = await signUp(api);
    const { body } = await api.request<TurnCredentialsResponse>('GET', WEBRTC_ROUTES.turnCredentials, {
      token,
    });
    const turn = body.rtcConfiguration.iceServers.find((server) => server.username) as {
      urls: string[];
      username: string;
      credential: string;
    };
    return { user, turn, stun: body.rtcConfiguration.iceServers[0] };
  }

  it('allocates a relay with them', async () => {
    const { turn } = await issued();
    expect(turn.urls).toContain(`turn:127.0.0.1:${coturn.port}?transport=udp`);
    const client = await TurnClient.connect(coturn.address());
    try {
      const relayed = await client.allocate({ username: turn.username, password: turn.credential });
      expect(relayed.address).toBe('127.0.0.1');
      expect(relayed.port).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it('hands out the TURN host as a STUN server that answers without credentials', async () => {
    const { stun } = await issued();
    expect(stun?.urls).toEqual([`stun:127.0.0.1:${coturn.port}`]);
    const client = await TurnClient.connect(coturn.address());
    try {
      expect((await client.binding()).address).toBe('127.0.0.1');
    } finally {
      await client.close();
    }
  });

  it('refuses an expired credential, correctly signed (401)', async () => {
    const { user } = await issued();
    const username = `${nowSeconds() - 60}:${user.id}`;
    expect(await allocationError(coturn, username, sign(username))).toMatchObject({ code: 401 });
  });

  it('refuses a wrong credential, another secret, or an expiry pushed later (401)', async () => {
    const { turn } = await issued();
    const [expiry, userId] = turn.username.split(':');
    const later = `${Number(expiry) + 3600}:${userId}`;
    for (const [username, password] of [
      [turn.username, 'wrong'],
      [turn.username, sign(turn.username, 'another-secret-of-enough-length-00')],
      // The expiry is signed: a client cannot extend its own credential.
      [later, turn.credential],
    ] as const) {
      expect(await allocationError(coturn, username, password), username).toMatchObject({ code: 401 });
    }
  });
});

describe('coturn/turnserver.conf as shipped (with only the test ports, secret and realm added)', () => {
  let coturn: Coturn;
  const username = () => `${nowSeconds() + 600}:00000000-0000-4000-8000-000000000001`;
  beforeAll(async () => {
    coturn = await Coturn.start({ secret: SECRET });
  });
  afterAll(() => coturn?.stop());

  it('refuses to relay to loopback, private, link-local (cloud metadata), CGNAT, multicast and reserved IPv4', async () => {
    const client = await TurnClient.connect(coturn.address());
    try {
      const user = username();
      await client.allocate({ username: user, password: sign(user) });
      for (const peer of [
        '127.0.0.1',
        '10.0.0.1',
        '169.254.169.254',
        '0.0.0.0',
        '100.64.0.1',
        '172.16.0.1',
        '192.168.1.1',
        '192.0.2.2',
        '198.18.0.1',
        '224.0.0.1',
        '239.255.255.250',
        '240.0.0.1',
        '255.255.255.255',
      ]) {
        await expectForbidden(client, peer);
      }
    } finally {
      await client.close();
    }
  });

  it('refuses to relay to loopback, IPv4-mapped, NAT64, private, link-local, multicast and reserved IPv6', async () => {
    // An IPv6 allocation: on an IPv4 one coturn answers 443 (family mismatch) before it checks.
    const client = await TurnClient.connect(coturn.address('ipv6'));
    try {
      const user = username();
      await client.allocate({ username: user, password: sign(user), family: 'ipv6' });
      for (const peer of [
        '::1',
        '::ffff:127.0.0.1',
        '::ffff:10.0.0.1',
        '::ffff:169.254.169.254',
        '::',
        '::7f00:1',
        '::ffff:0:7f00:1',
        '64:ff9b::a9fe:a9fe',
        '64:ff9b:1::a00:1',
        '2001:db8::1',
        '2002:7f00:1::1',
        'fd00::2',
        'fe80::1',
        'fec0::1',
        'ff02::1',
        'ff0e::1',
      ]) {
        await expectForbidden(client, peer);
      }
    } finally {
      await client.close();
    }
  });

  it('lets an address in TURN_ALLOWED_PEER_IPS (a private media server) through, and nothing next to it', async () => {
    const allowed = await Coturn.start({ secret: SECRET, env: { TURN_ALLOWED_PEER_IPS: '10.0.0.7' } });
    const client = await TurnClient.connect(allowed.address());
    try {
      const user = username();
      await client.allocate({ username: user, password: sign(user) });
      // A permission only: nothing is sent to it.
      await expect(client.createPermission('10.0.0.7')).resolves.toBeUndefined();
      await expectForbidden(client, '10.0.0.8');
      await expectForbidden(client, '127.0.0.1');
    } finally {
      await client.close();
      await allowed.stop();
    }
  });

  it('keeps loopback denied even when listed as an allowed peer, without allow-loopback-peers', async () => {
    const listed = await Coturn.start({ secret: SECRET, extraConfig: ['allowed-peer-ip=127.0.0.1'] });
    const client = await TurnClient.connect(listed.address());
    try {
      const user = username();
      await client.allocate({ username: user, password: sign(user) });
      await expectForbidden(client, '127.0.0.1');
    } finally {
      await client.close();
      await listed.stop();
    }
  });
});

describe('a loopback relay with allow-loopback-peers in the test config (the setup above would relay)', () => {
  let coturn: Coturn;
  beforeAll(async () => {
    coturn = await Coturn.start({ secret: SECRET, loopbackPeers: true });
  });
  afterAll(() => coturn?.stop());

  for (const family of ['ipv4', 'ipv6'] as const) {
    it(`relays datagrams both ways between two ${family} allocations`, async () => {
      const a = await TurnClient.connect(coturn.address(family));
      const b = await TurnClient.connect(coturn.address(family));
      try {
        const userA = `${nowSeconds() + 600}:00000000-0000-4000-8000-00000000000a`;
        const userB = `${nowSeconds() + 600}:00000000-0000-4000-8000-00000000000b`;
        const relayA = await a.allocate({ username: userA, password: sign(userA), family });
        const relayB = await b.allocate({ username: userB, password: sign(userB), family });
        await a.createPermission(relayB.address);
        await b.createPermission(relayA.address);

        a.send(relayB, Buffer.from('hello from a'));
        const atB = await b.receive();
        expect(atB.data.toString()).toBe('hello from a');
        expect(atB.peer).toEqual(relayA);

        b.send(relayA, Buffer.from('hello from b'));
        const atA = await a.receive();
        expect(atA.data.toString()).toBe('hello from b');
        expect(atA.peer).toEqual(relayB);
      } finally {
        await a.close();
        await b.close();
      }
    });
  }

  it('still refuses private and link-local peers', async () => {
    const client = await TurnClient.connect(coturn.address());
    try {
      const user = `${nowSeconds() + 600}:00000000-0000-4000-8000-00000000000c`;
      await client.allocate({ username: user, password: sign(user) });
      await expectForbidden(client, '10.0.0.1');
      await expectForbidden(client, '169.254.169.254');
    } finally {
      await client.close();
    }
  });
});

describe('coturn/turnserver.conf', () => {
  const config = readFileSync(path.join(COTURN_DIR, 'turnserver.conf'), 'utf8');
  const lines = config.split('\n').filter((line) => line && !line.startsWith('#'));

  it('authenticates with the shared secret, hardens, and caps quotas and bandwidth', () => {
    for (const line of [
      'use-auth-secret',
      'no-cli',
      'no-multicast-peers',
      'no-tlsv1',
      'no-tlsv1_1',
      'no-tcp-relay',
      'fingerprint',
    ]) {
      expect(lines, line).toContain(line);
    }
    for (const key of ['user-quota', 'total-quota', 'max-bps', 'bps-capacity']) {
      const value = Number(lines.find((line) => line.startsWith(`${key}=`))?.split('=')[1]);
      expect(value, key).toBeGreaterThan(0);
    }
  });

  it('denies IPv6 ranges that coturn 4.6 reads as written: none from ::, none a different box', () => {
    const ranges = deniedRanges(config).filter((range) => range.family === 'ipv6');
    expect(ranges.length).toBeGreaterThan(15);
    const bytes = (value: bigint) =>
      Array.from({ length: 16 }, (_, i) => Number((value >> BigInt(8 * (15 - i))) & 0xffn));
    for (const { text, start, end } of ranges) {
      // From :: there is no lower bound, and every IPv4 address sorts below: all of IPv4 too.
      expect(start, text).not.toBe(0n);
      // coturn compares each byte apart, so it denies the box of addresses whose every byte lies
      // between the bounds' bytes. That box is the span only when the bounds differ from one
      // byte on with zeros after it in the start and 0xff in the end (as a whole prefix does).
      const [low, high] = [bytes(start), bytes(end)];
      const first = low.findIndex((byte, i) => byte !== high[i]);
      expect(
        low.slice(first + 1).every((byte) => byte === 0),
        `${text}: start`,
      ).toBe(true);
      expect(
        high.slice(first + 1).every((byte) => byte === 0xff),
        `${text}: end`,
      ).toBe(true);
    }
  });

  it('holds no secret, no realm, no allowed peer and no loopback exception', () => {
    for (const key of ['static-auth-secret', 'realm', 'allowed-peer-ip', 'allow-loopback-peers', 'user=']) {
      expect(
        lines.some((line) => line.startsWith(key)),
        key,
      ).toBe(false);
    }
  });
});

describe('coturn/entrypoint.sh', () => {
  let dir: string;
  beforeAll(() => {
    // A stand-in turnserver that prints the config it was given.
    dir = mkdtempSync(path.join(tmpdir(), 'voice-entrypoint-'));
    writeFileSync(path.join(dir, 'turnserver'), '#!/bin/sh\ncat "$2"\n');
    chmodSync(path.join(dir, 'turnserver'), 0o755);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (env: Record<string, string>) =>
    spawnSync('sh', [path.join(COTURN_DIR, 'entrypoint.sh')], {
      encoding: 'utf8',
      env: {
        PATH: `${dir}:${process.env.PATH}`,
        TMPDIR: dir,
        TURN_CONFIG_TEMPLATE: path.join(COTURN_DIR, 'turnserver.conf'),
        TURN_SECRET: SECRET,
        TURN_REALM: 'voice.example.test',
        ...env,
      },
    });

  it('writes the secret, realm, relay address and single allowed peers into a private copy', () => {
    const result = run({
      TURN_RELAY_IP: '192.168.1.5',
      TURN_EXTERNAL_IP: '203.0.113.9/192.168.1.5',
      TURN_ALLOWED_PEER_IPS: '10.0.0.7, fd00::7',
    });
    expect(result.status, result.stderr).toBe(0);
    const added = result.stdout.slice(result.stdout.indexOf('# Added by coturn/entrypoint.sh'));
    expect(added.split('\n').filter((line) => line && !line.startsWith('#'))).toEqual([
      `static-auth-secret=${SECRET}`,
      'realm=voice.example.test',
      'external-ip=203.0.113.9/192.168.1.5',
      'relay-ip=192.168.1.5',
      'allowed-peer-ip=192.168.1.5',
      'allowed-peer-ip=203.0.113.9',
      'allowed-peer-ip=10.0.0.7',
      'allowed-peer-ip=fd00::7',
    ]);
  });

  it('writes TURN_DENIED_PEER_IPS (addresses and CIDR blocks) as the whole-prefix ranges coturn reads', () => {
    const result = run({
      TURN_DENIED_PEER_IPS:
        '172.18.0.0/16, 203.0.113.7,2a01:4f8:1::/48,10.1.2.3/8,2a01:4f8::1,1:2:3:4:5:6:7::/127',
    });
    expect(result.status, result.stderr).toBe(0);
    const added = result.stdout.slice(result.stdout.indexOf('# Added by coturn/entrypoint.sh'));
    expect(added.split('\n').filter((line) => line.startsWith('denied-peer-ip='))).toEqual([
      'denied-peer-ip=172.18.0.0-172.18.255.255',
      'denied-peer-ip=203.0.113.7',
      'denied-peer-ip=2a01:4f8:1:0:0:0:0:0-2a01:4f8:1:ffff:ffff:ffff:ffff:ffff',
      // Host bits are dropped: the block that holds the address.
      'denied-peer-ip=10.0.0.0-10.255.255.255',
      'denied-peer-ip=2a01:4f8:0:0:0:0:0:1',
      'denied-peer-ip=1:2:3:4:5:6:7:0-1:2:3:4:5:6:7:1',
    ]);
  });

  it('reads the secret from TURN_SECRET_FILE (a Docker secret), trimmed as the API trims it', () => {
    const file = path.join(dir, 'turn_secret');
    writeFileSync(file, ` ${SECRET}\n\n`);
    const result = run({ TURN_SECRET: '', TURN_SECRET_FILE: file });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout.split('\n')).toContain(`static-auth-secret=${SECRET}`);
  });

  // {file} stands for a file in the test's folder that holds the case's contents.
  it.each([
    [
      'TURN_SECRET set too',
      { TURN_SECRET: SECRET, TURN_SECRET_FILE: '{file}' },
      SECRET,
      'TURN_SECRET, TURN_SECRET_FILE: set one, not both',
    ],
    [
      'a file that is not there',
      { TURN_SECRET_FILE: '/nonexistent/turn_secret' },
      null,
      'TURN_SECRET_FILE: cannot read /nonexistent/turn_secret',
    ],
    [
      'a relative path',
      { TURN_SECRET_FILE: 'turn_secret' },
      null,
      'TURN_SECRET_FILE: must be an absolute path (got "turn_secret")',
    ],
    ['an empty file', { TURN_SECRET_FILE: '{file}' }, ' \n', 'TURN_SECRET_FILE: {file} is empty'],
    [
      'a second line',
      { TURN_SECRET_FILE: '{file}' },
      `${SECRET}\nallow-loopback-peers\n`,
      'TURN_SECRET_FILE must be a single line',
    ],
  ])('refuses TURN_SECRET_FILE with %s and starts nothing', (_, env, contents, message) => {
    const file = path.join(dir, 'turn_secret');
    if (contents !== null) writeFileSync(file, contents);
    const result = run({
      TURN_SECRET: '',
      ...env,
      TURN_SECRET_FILE: env.TURN_SECRET_FILE.replace('{file}', file),
    });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(message.replace('{file}', file));
    expect(result.stdout).toBe('');
  });

  it.each([
    ['TURN_SECRET', { TURN_SECRET: '' }],
    ['TURN_REALM', { TURN_REALM: '' }],
    ['TURN_REALM', { TURN_REALM: 'a\nallow-loopback-peers' }],
    ['TURN_ALLOWED_PEER_IPS', { TURN_ALLOWED_PEER_IPS: '10.0.0.0-10.255.255.255' }],
    ['TURN_ALLOWED_PEER_IPS', { TURN_ALLOWED_PEER_IPS: '10.0.0.0/8' }],
    ['TURN_ALLOWED_PEER_IPS', { TURN_ALLOWED_PEER_IPS: 'media.example.test' }],
    ['TURN_ALLOWED_PEER_IPS', { TURN_ALLOWED_PEER_IPS: '127.0.0.1' }],
    ['TURN_ALLOWED_PEER_IPS', { TURN_ALLOWED_PEER_IPS: '::ffff:127.0.0.1' }],
    ['TURN_ALLOWED_PEER_IPS', { TURN_ALLOWED_PEER_IPS: '0.0.0.0' }],
    ['TURN_ALLOWED_PEER_IPS', { TURN_ALLOWED_PEER_IPS: '224.0.0.1' }],
    ['TURN_RELAY_IP', { TURN_RELAY_IP: '::1' }],
    // coturn knows no masks or names; a range from :: or 0.0.0.0 has no lower bound there.
    ['TURN_DENIED_PEER_IPS', { TURN_DENIED_PEER_IPS: '10.0.0.0-10.0.0.5' }],
    ['TURN_DENIED_PEER_IPS', { TURN_DENIED_PEER_IPS: 'db.example.test' }],
    ['TURN_DENIED_PEER_IPS', { TURN_DENIED_PEER_IPS: '::/64' }],
    ['TURN_DENIED_PEER_IPS', { TURN_DENIED_PEER_IPS: '::1/96' }],
    ['TURN_DENIED_PEER_IPS', { TURN_DENIED_PEER_IPS: '0.0.0.0/0' }],
    ['TURN_DENIED_PEER_IPS', { TURN_DENIED_PEER_IPS: '10.0.0.0/33' }],
    ['TURN_DENIED_PEER_IPS', { TURN_DENIED_PEER_IPS: '2a01::/129' }],
    ['TURN_DENIED_PEER_IPS', { TURN_DENIED_PEER_IPS: '10.0.0.0/' }],
    ['TURN_DENIED_PEER_IPS', { TURN_DENIED_PEER_IPS: '10.0.0.0/08' }],
    ['TURN_DENIED_PEER_IPS', { TURN_DENIED_PEER_IPS: '1.2.3.256' }],
    ['TURN_DENIED_PEER_IPS', { TURN_DENIED_PEER_IPS: '01.2.3.4' }],
    ['TURN_DENIED_PEER_IPS', { TURN_DENIED_PEER_IPS: '1.2.3' }],
    ['TURN_DENIED_PEER_IPS', { TURN_DENIED_PEER_IPS: '2a01::1::2' }],
    ['TURN_DENIED_PEER_IPS', { TURN_DENIED_PEER_IPS: '1:2:3:4:5:6:7:8:' }],
    ['TURN_DENIED_PEER_IPS', { TURN_DENIED_PEER_IPS: '12345::1' }],
    ['TURN_DENIED_PEER_IPS', { TURN_DENIED_PEER_IPS: '::ffff:1.2.3.4' }],
    ['TURN_DENIED_PEER_IPS', { TURN_DENIED_PEER_IPS: 'fe80::1%eth0' }],
    ['TURN_DENIED_PEER_IPS', { TURN_DENIED_PEER_IPS: '203.0.113.7\nallow-loopback-peers' }],
  ])('refuses a bad %s and starts nothing', (name, env) => {
    const result = run(env);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(name);
    expect(result.stdout).toBe('');
  });
});
