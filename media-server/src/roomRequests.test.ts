import { RTC_LIMITS } from '@voice/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { RTC_ERROR } from './errors.ts';
import { signRoomToken } from './testing/roomTokens.ts';
import { join, TestMediaServer, until } from './testing/TestMediaServer.ts';
import { handshakeStatus, TestMember } from './testing/TestMember.ts';

// What an outside client (mediasoup-demo's RoomClient flow) found in the /rtc methods, against a
// real media server: members driven with a raw protoo client, audio through PlainTransports.

const servers: TestMediaServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(): Promise<TestMediaServer> {
  const server = await TestMediaServer.start({ rtcPorts: { min: 43200, max: 43399 } });
  servers.push(server);
  return server;
}

/** DTLS parameters as a browser sends them; mediasoup only stores them until DTLS starts. */
const dtlsParameters = {
  role: 'client',
  fingerprints: [{ algorithm: 'sha-256', value: `${'AB:'.repeat(31)}AB` }],
} as const;

describe('connectWebRtcTransport', () => {
  it('connectWebRtcTransport on a connected transport answers 409 "already connected", and nothing is logged as failed', async () => {
    const running = await start();
    const alice = await running.connect('room-1', 'alice');
    const bob = await running.connect('room-1', 'bob');
    const send = await alice.request('createWebRtcTransport', { producing: true, consuming: false });
    const receive = await alice.request('createWebRtcTransport', { producing: false, consuming: true });

    expect(await alice.request('connectWebRtcTransport', { transportId: send.id, dtlsParameters })).toEqual(
      {},
    );
    expect(await alice.refusal('connectWebRtcTransport', { transportId: send.id, dtlsParameters })).toEqual({
      code: RTC_ERROR.conflict,
      reason: `transport "${send.id}" is already connected`,
    });

    // Two at once: one connects, the other is told it is already connected.
    const both = await Promise.allSettled([
      alice.request('connectWebRtcTransport', { transportId: receive.id, dtlsParameters }),
      alice.request('connectWebRtcTransport', { transportId: receive.id, dtlsParameters }),
    ]);
    expect(both.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(both.find((result) => result.status === 'rejected')?.reason).toMatchObject({
      code: RTC_ERROR.conflict,
    });

    // Someone else's transport is unknown to bob, connected or not.
    expect(await bob.refusal('connectWebRtcTransport', { transportId: send.id, dtlsParameters })).toEqual({
      code: RTC_ERROR.notFound,
      reason: `transport "${send.id}" not found`,
    });
    expect(running.errors).toEqual([]);
    expect(await join(alice)).toMatchObject({ peers: [], next: null });
  });

  it('connectWebRtcTransport refused for its parameters may be tried again', async () => {
    const running = await start();
    const alice = await running.connect('room-1', 'alice');
    const send = await alice.request('createWebRtcTransport', { producing: true, consuming: false });
    const refused = await alice.refusal('connectWebRtcTransport', {
      transportId: send.id,
      dtlsParameters: { ...dtlsParameters, fingerprints: [{ algorithm: 'md5', value: 'AB:CD' }] },
    });
    expect(refused.code).toBe(RTC_ERROR.badRequest);
    expect(await alice.request('connectWebRtcTransport', { transportId: send.id, dtlsParameters })).toEqual(
      {},
    );
    expect(
      (await alice.refusal('connectWebRtcTransport', { transportId: send.id, dtlsParameters })).code,
    ).toBe(RTC_ERROR.conflict);
    expect(running.errors).toEqual([]);
  });
});

describe('room tokens at /rtc', () => {
  it('a token presented for another room or person is refused and stays good for its own', async () => {
    const running = await start();
    const token = signRoomToken('room-1', 'alice');
    expect(await handshakeStatus(running.url('room-2', 'alice', token))).toBe(RTC_ERROR.unauthorized);
    expect(await handshakeStatus(running.url('room-1', 'bob', token))).toBe(RTC_ERROR.unauthorized);

    const alice = await TestMember.connect(running.url('room-1', 'alice', token));
    expect(await join(alice)).toMatchObject({ peers: [], next: null });
    alice.close();
    // Spent now: it opened its connection.
    expect(await handshakeStatus(running.url('room-1', 'alice', token))).toBe(RTC_ERROR.unauthorized);
  });
});

describe('join without rtpCapabilities', () => {
  it('a member that joins without rtpCapabilities sends, is heard, receives nothing, and the others hear each other', async () => {
    const running = await start();
    const alice = await running.connect('room-1', 'alice');
    const bob = await running.connect('room-1', 'bob');
    const bot = await running.connect('room-1', 'bot');
    const bobEar = await running.listener('room-1', 'bob');
    await join(alice);
    await join(bob);

    // As mediasoup-demo's RoomClient sends it with consume=false: no rtpCapabilities, SCTP ones.
    expect(
      await bot.peer.request('join', {
        displayName: 'Streamer',
        device: { flag: 'node', name: 'bot', version: '1' },
        sctpCapabilities: { numStreams: { OS: 1024, MIS: 1024 } },
      }),
    ).toMatchObject({
      peers: [
        {
          id: 'alice',
          displayName: 'Person alice',
          avatarUrl: null,
          admin: false,
          moderator: false,
          muted: true,
          deafened: false,
          mutedBy: null,
          speaker: true,
          handRaised: false,
        },
        {
          id: 'bob',
          displayName: 'Person bob',
          avatarUrl: null,
          admin: false,
          moderator: false,
          muted: true,
          deafened: false,
          mutedBy: null,
          speaker: true,
          handRaised: false,
        },
      ],
      next: null,
    });
    await alice.peerCame('bot');
    expect((await bot.refusal('join', {})).code).toBe(RTC_ERROR.conflict);

    // Even with a receiving transport, the bot is given no consumer.
    await running.listener('room-1', 'bot');
    const botVoice = await running.speaker('room-1', bot, 'bot', 8888);
    await bob.until(
      () => bob.consumers.some((consumer) => consumer.peerId === 'bot'),
      "bob's consumer of bot",
    );
    await botVoice.send(30);
    await until(() => bobEar.socket.packets.length >= 10, "the bot's RTP at bob");

    const aliceVoice = await running.speaker('room-1', alice, 'alice', 9999);
    await bob.until(
      () => bob.consumers.some((consumer) => consumer.peerId === 'alice'),
      "bob's consumer of alice",
    );
    // The bot's turn came before bob's answer: it was passed over, not delayed.
    expect(bot.consumers).toEqual([]);
    expect(running.room('room-1').peer('bot')?.consumerCount).toBe(0);
    const heard = bobEar.socket.packets.length;
    await aliceVoice.send(30);
    await until(() => bobEar.socket.packets.length >= heard + 10, "alice's RTP at bob");

    // A late joiner hears both voices; the bot still receives nothing.
    const carol = await running.connect('room-1', 'carol');
    await running.listener('room-1', 'carol');
    await join(carol);
    await carol.until(() => carol.consumers.length === 2, 'a consumer per voice for carol');
    expect(bot.consumers).toEqual([]);
    // The API hears who is in the room with the next peersChanged (at most two a second).
    await until(() => running.members.at(-1)?.peers.join() === 'alice,bob,bot,carol', 'the four published');
    expect(running.errors).toEqual([]);
  });
});

describe('stats', () => {
  /** alice speaks to bob; each holds a transport, and bob a consumer of alice's producer. */
  async function talking() {
    const running = await start();
    const alice = await running.connect('room-1', 'alice');
    const bob = await running.connect('room-1', 'bob');
    const bobEar = await running.listener('room-1', 'bob');
    await join(alice);
    await join(bob);
    const voice = await running.speaker('room-1', alice, 'alice', 1212);
    await bob.until(() => bob.consumers.length === 1, 'a newConsumer');
    const consumerId = bob.consumers[0]?.id ?? '';
    await voice.send(30);
    await until(() => bobEar.socket.packets.length >= 10, 'RTP at bob');
    return { running, alice, bob, bobEar, voice, consumerId };
  }

  it('setDeafened tells the others, once per change, and refuses bad data with the member still served', async () => {
    const running = await start();
    const alice = await running.connect('room-1', 'alice');
    const bob = await running.connect('room-1', 'bob');
    await join(alice);
    await join(bob);
    for (const data of [{}, { deafened: 'yes' }, { deafened: 1 }, { deafened: true, extra: 1 }, null]) {
      expect((await bob.refusal('setDeafened', data)).code, JSON.stringify(data)).toBe(RTC_ERROR.badRequest);
    }
    expect(await bob.request('setDeafened', { deafened: true })).toEqual({});
    expect(await alice.notification('peerDeafened', (data) => data.peerId === 'bob')).toEqual({
      peerId: 'bob',
      deafened: true,
    });
    // The same again changes nothing and tells nobody; undeafened, the others hear of it.
    expect(await bob.request('setDeafened', { deafened: true })).toEqual({});
    expect(await bob.request('setDeafened', { deafened: false })).toEqual({});
    expect(
      await alice.notification('peerDeafened', (data) => data.peerId === 'bob' && data.deafened === false),
    ).toEqual({
      peerId: 'bob',
      deafened: false,
    });
    expect(alice.notifications.filter((n) => n.method === 'peerDeafened')).toHaveLength(2);
    // A newcomer sees who is deafened in the join answer.
    await bob.request('setDeafened', { deafened: true });
    const carol = await running.connect('room-1', 'carol');
    const { peers } = (await join(carol)) as { peers: Array<{ id: string; deafened: boolean }> };
    expect(peers.find((peer) => peer.id === 'bob')?.deafened).toBe(true);
  });

  it('getTransportStats, getProducerStats and getConsumerStats report a member its own objects', async () => {
    const { running, alice, bob, bobEar, voice, consumerId } = await talking();
    const webRtc = await alice.request('createWebRtcTransport', { producing: false, consuming: true });

    expect(await alice.request('getTransportStats', { transportId: webRtc.id })).toEqual([
      expect.objectContaining({ type: 'webrtc-transport', transportId: webRtc.id, iceState: 'new' }),
    ]);
    expect(await alice.request('getTransportStats', { transportId: voice.transportId })).toEqual([
      expect.objectContaining({
        type: 'plain-rtp-transport',
        transportId: voice.transportId,
        tuple: expect.objectContaining({ localIp: '127.0.0.1', protocol: 'udp' }),
      }),
    ]);
    expect(await alice.request('getProducerStats', { producerId: voice.producerId })).toEqual([
      expect.objectContaining({
        type: 'inbound-rtp',
        kind: 'audio',
        ssrc: 1212,
        packetCount: expect.any(Number),
      }),
    ]);
    // The consumer's own entry, not the producer's (whose ssrc and link are alice's).
    const consumerStats = await bob.request('getConsumerStats', { consumerId });
    expect(consumerStats).toEqual([
      expect.objectContaining({ type: 'outbound-rtp', kind: 'audio', mimeType: 'audio/opus' }),
    ]);
    expect(consumerStats[0]?.packetCount).toBeGreaterThan(0);
    expect(await bob.request('getTransportStats', { transportId: bobEar.transportId })).toEqual([
      expect.objectContaining({ type: 'plain-rtp-transport', rtpBytesSent: expect.any(Number) }),
    ]);
    expect(running.errors).toEqual([]);
  });

  it('refuses stats requests with bad data, for objects of others or gone, before the join and over the stats rate, and no one else notices', async () => {
    const { running, alice, bob, bobEar, voice, consumerId } = await talking();
    const mallory = await running.connect('room-1', 'mallory');

    expect(await mallory.refusal('getTransportStats', { transportId: voice.transportId })).toEqual({
      code: RTC_ERROR.forbidden,
      reason: 'join the room before getTransportStats',
    });
    await join(mallory);

    for (const [method, data] of [
      ['getTransportStats', {}],
      ['getTransportStats', { transportId: 42 }],
      ['getTransportStats', { transportId: '' }],
      ['getTransportStats', undefined],
      ['getProducerStats', { producerId: null }],
      ['getProducerStats', { transportId: voice.transportId }],
      ['getConsumerStats', { consumerId: ['x'] }],
      ['getConsumerStats', { consumerId: 'x'.repeat(201) }],
    ] as const) {
      expect((await mallory.refusal(method, data)).code, `${method} ${JSON.stringify(data)}`).toBe(
        RTC_ERROR.badRequest,
      );
    }

    // Another member's ids are unknown ids: the same answer as an id nobody has.
    expect(await mallory.refusal('getTransportStats', { transportId: voice.transportId })).toEqual({
      code: RTC_ERROR.notFound,
      reason: `transport "${voice.transportId}" not found`,
    });
    expect(await mallory.refusal('getProducerStats', { producerId: voice.producerId })).toEqual({
      code: RTC_ERROR.notFound,
      reason: `producer "${voice.producerId}" not found`,
    });
    expect(await mallory.refusal('getConsumerStats', { consumerId })).toEqual({
      code: RTC_ERROR.notFound,
      reason: `consumer "${consumerId}" not found`,
    });
    expect(await alice.refusal('getConsumerStats', { consumerId })).toEqual({
      code: RTC_ERROR.notFound,
      reason: `consumer "${consumerId}" not found`,
    });
    expect((await mallory.refusal('getProducerStats', { producerId: 'nobody-has-this' })).code).toBe(
      RTC_ERROR.notFound,
    );

    // A flood: past the stats burst, 429 for mallory's stats only.
    const mallorySend = await mallory.request('createWebRtcTransport', { producing: true, consuming: false });
    const flood = await Promise.allSettled(
      Array.from({ length: RTC_LIMITS.statsBurst + 10 }, () =>
        mallory.request('getTransportStats', { transportId: mallorySend.id }),
      ),
    );
    const limited = flood.filter((result) => result.status === 'rejected');
    expect(limited.length).toBeGreaterThanOrEqual(5);
    for (const result of limited) {
      expect((result as PromiseRejectedResult).reason).toMatchObject({
        code: RTC_ERROR.tooManyRequests,
        message: 'too many stats requests',
      });
    }
    expect(await mallory.request('getRouterRtpCapabilities', {})).toMatchObject({
      codecs: expect.any(Array),
    });

    // The others are served and hear each other throughout.
    expect(await alice.request('getProducerStats', { producerId: voice.producerId })).toHaveLength(1);
    expect(await bob.request('getConsumerStats', { consumerId })).toHaveLength(1);
    const heard = bobEar.socket.packets.length;
    await voice.send(30);
    await until(() => bobEar.socket.packets.length >= heard + 10, 'RTP at bob after the flood');

    // A closed producer's stats are a 404 like any unknown id; its consumer's too.
    await alice.request('closeProducer', { producerId: voice.producerId });
    await bob.notification('consumerClosed', (data) => data.consumerId === consumerId);
    expect((await alice.refusal('getProducerStats', { producerId: voice.producerId })).code).toBe(
      RTC_ERROR.notFound,
    );
    expect((await bob.refusal('getConsumerStats', { consumerId })).code).toBe(RTC_ERROR.notFound);
    expect(running.errors).toEqual([]);
  });
});
