import { roomCommandsChannel } from '@voice/bus';
import { RTC_LIMITS } from '@voice/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { w3cwebsocket as W3CWebSocket } from 'websocket';
import { RTC_ERROR } from './errors.ts';
import { signRoomToken } from './testing/roomTokens.ts';
import { opusRtpParameters, ssrcOf } from './testing/rtp.ts';
import { join, TestMediaServer, until } from './testing/TestMediaServer.ts';
import { handshakeStatus } from './testing/TestMember.ts';

// A real media server (real mediasoup workers, real protoo over WebSocket) with members that send
// and receive Opus RTP through PlainTransports from UDP sockets of the test.

const servers: TestMediaServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(numWorkers = 1): Promise<TestMediaServer> {
  const server = await TestMediaServer.start({ numWorkers, rtcPorts: { min: 43000, max: 43199 } });
  servers.push(server);
  return server;
}

describe('Room', () => {
  it('forwards Opus RTP from one member to the others through consumers they were asked to take', async () => {
    const running = await start();
    const alice = await running.connect('room-1', 'alice');
    const bob = await running.connect('room-1', 'bob');
    const bobEar = await running.listener('room-1', 'bob');
    expect(await join(alice)).toMatchObject({ peers: [], next: null });
    expect(await join(bob)).toMatchObject({
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
      ],
      next: null,
    });
    await alice.peerCame('bob');

    const voice = await running.speaker('room-1', alice, 'alice', 1111);
    await bob.until(() => bob.consumers.length === 1, 'a newConsumer');
    const consumer = bob.consumers[0];
    expect(consumer).toMatchObject({
      peerId: 'alice',
      producerId: voice.producerId,
      kind: 'audio',
      producerPaused: false,
    });
    await bob.peerCame('alice', (info) => !info.muted);

    await voice.send(50);
    await until(() => bobEar.socket.packets.length >= 20, 'RTP at the listener');
    const rtp = consumer?.rtpParameters as { encodings: { ssrc: number }[] } | undefined;
    const ssrc = rtp?.encodings[0]?.ssrc;
    expect(ssrc).toEqual(expect.any(Number));
    expect(bobEar.socket.packets.every((packet) => ssrcOf(packet) === ssrc)).toBe(true);

    // A member joining later gets a consumer for the voice already there.
    const carol = await running.connect('room-1', 'carol');
    const carolEar = await running.listener('room-1', 'carol');
    expect((await join(carol)).peers.map((peer) => peer.id).sort()).toEqual(['alice', 'bob']);
    await carol.until(() => carol.consumers.length === 1, 'a newConsumer for carol');
    await voice.send(50);
    await until(() => carolEar.socket.packets.length >= 20, 'RTP at the late listener');
    expect(running.members.at(-1)).toEqual({
      serverId: running.media.id,
      roomId: 'room-1',
      peers: ['alice', 'bob', 'carol'],
    });
  });

  it('pausing a producer mutes it for everyone; closing it closes their consumers', async () => {
    const running = await start();
    const alice = await running.connect('room-1', 'alice');
    const bob = await running.connect('room-1', 'bob');
    await running.listener('room-1', 'bob');
    await join(alice);
    await join(bob);
    const voice = await running.speaker('room-1', alice, 'alice', 2222);
    await bob.until(() => bob.consumers.length === 1, 'a newConsumer');
    const consumerId = bob.consumers[0]?.id ?? '';

    await alice.request('pauseProducer', { producerId: voice.producerId });
    await bob.notification('peerMuted', (data) => data.peerId === 'alice' && data.muted);
    await bob.notification('consumerPaused', (data) => data.consumerId === consumerId);
    await alice.request('resumeProducer', { producerId: voice.producerId });
    await bob.notification('consumerResumed', (data) => data.consumerId === consumerId);

    await bob.request('pauseConsumer', { consumerId });
    await bob.request('resumeConsumer', { consumerId });
    await alice.request('closeProducer', { producerId: voice.producerId });
    await bob.notification('consumerClosed', (data) => data.consumerId === consumerId);
    expect((await bob.refusal('pauseConsumer', { consumerId })).code).toBe(RTC_ERROR.notFound);
  });

  it('reports who speaks: the levels of the speakers only, the active speaker, then silence', {
    timeout: 45_000,
  }, async () => {
    const running = await start();
    const alice = await running.connect('room-1', 'alice');
    const bob = await running.connect('room-1', 'bob');
    await join(alice);
    await join(bob);
    const loud = await running.speaker('room-1', alice, 'alice', 6666);
    // bob produces too, but below the threshold: he is not reported.
    const quietVoice = await running.speaker('room-1', bob, 'bob', 7777);

    // Speech comes in bursts: the dominant speaker detection takes a steady level for noise.
    // Both go on until alice is reported: the detection needs a few of its rounds, more of them
    // on a busy machine (up to 20 s here).
    const aliceReported = () => bob.received('activeSpeaker').some((data) => data.peerId === 'alice');
    const stopAt = Date.now() + 20_000;
    const talking = (async () => {
      while (!aliceReported() && Date.now() < stopAt) {
        await Promise.all([
          loud.send(90, { intervalMs: 10, level: (i) => (i % 30 < 20 ? 20 : 90) }),
          quietVoice.send(90, { intervalMs: 10, level: () => 110 }),
        ]);
      }
    })();
    const { levels } = await bob.notification('audioLevels', (data) => data.levels.length > 0);
    expect(levels).toEqual([{ peerId: 'alice', volume: expect.any(Number) }]);
    expect(levels[0]?.volume).toBeGreaterThan(-80);
    await talking;
    expect(aliceReported()).toBe(true);

    await bob.notification('audioLevels', (data) => data.levels.length === 0);
    await bob.notification('activeSpeaker', (data) => data.peerId === null);
  });

  it('createWebRtcTransport answers ICE and DTLS parameters on the configured address, two per member', async () => {
    const running = await start();
    const alice = await running.connect('room-1', 'alice');
    const send = await alice.request('createWebRtcTransport', { producing: true, consuming: false });
    const candidates = send.iceCandidates as { ip: string; protocol: string }[];
    expect(candidates.map((candidate) => candidate.ip)).toContain('127.0.0.1');
    expect(candidates.map((candidate) => candidate.protocol).sort()).toEqual(['tcp', 'udp']);
    const tcpOnly = await alice.request('createWebRtcTransport', {
      producing: false,
      consuming: true,
      forceTcp: true,
    });
    expect((tcpOnly.iceCandidates as { protocol: string }[]).map((c) => c.protocol)).toEqual(['tcp']);
    expect(await alice.request('restartIce', { transportId: send.id })).toMatchObject({
      usernameFragment: expect.any(String),
    });
    expect(await alice.refusal('createWebRtcTransport', { producing: true, consuming: false })).toEqual({
      code: RTC_ERROR.conflict,
      reason: `at most ${RTC_LIMITS.transportsPerPeer} transports per member`,
    });
    const badDtls = await alice.refusal('connectWebRtcTransport', {
      transportId: send.id,
      dtlsParameters: { fingerprints: [] },
    });
    expect(badDtls.code).toBe(RTC_ERROR.badRequest);
    expect(badDtls.reason).toMatch(/dtlsParameters\.fingerprints/);
  });

  it('refuses connections without a valid, unused token for that room and person', async () => {
    const running = await start();
    const past = Math.floor(Date.now() / 1000) - 120;
    const reused = signRoomToken('room-1', 'alice');
    await running.connect('room-1', 'bob');
    expect(await handshakeStatus(running.url('room-1', 'alice', reused))).toBe(101);
    const refused = {
      'no token': running.url('room-1', 'alice', null),
      'a reused token': running.url('room-1', 'alice', reused),
      'an expired token': running.url(
        'room-1',
        'alice',
        signRoomToken('room-1', 'alice', { iat: past, exp: past + 60 }),
      ),
      'another room': running.url('room-2', 'alice', signRoomToken('room-1', 'alice')),
      'another person': running.url('room-1', 'mallory', signRoomToken('room-1', 'alice')),
      'a forged token': running.url('room-1', 'alice', signRoomToken('room-1', 'alice', {}, 'x'.repeat(40))),
    };
    for (const [what, url] of Object.entries(refused)) {
      expect(await handshakeStatus(url), what).toBe(RTC_ERROR.unauthorized);
    }
  });

  it('refuses requests out of order, on objects of others, with bad data or over the rate, while others keep talking', async () => {
    const running = await start();
    const alice = await running.connect('room-1', 'alice');
    const bob = await running.connect('room-1', 'bob');
    const mallory = await running.connect('room-1', 'mallory');
    const bobEar = await running.listener('room-1', 'bob');
    const room = running.media.rooms.get('room-1');
    const mallorySend = await room?.createPlainTransport('mallory', { producing: true, consuming: false });
    const params = { kind: 'audio', rtpParameters: opusRtpParameters(3333) };

    expect(await mallory.refusal('produce', { transportId: mallorySend?.id, ...params })).toEqual({
      code: RTC_ERROR.forbidden,
      reason: 'join the room before produce',
    });
    await join(alice);
    await join(bob);
    await join(mallory);
    const voice = await running.speaker('room-1', alice, 'alice', 1111);

    // Another member's transport, producer and consumer are unknown ids to mallory.
    expect(await mallory.refusal('produce', { transportId: bobEar.transportId, ...params })).toEqual({
      code: RTC_ERROR.notFound,
      reason: `transport "${bobEar.transportId}" not found`,
    });
    expect((await mallory.refusal('restartIce', { transportId: voice.transportId })).code).toBe(
      RTC_ERROR.notFound,
    );
    expect((await mallory.refusal('pauseProducer', { producerId: voice.producerId })).code).toBe(
      RTC_ERROR.notFound,
    );
    await bob.until(() => bob.consumers.length === 1, 'a newConsumer');
    expect((await mallory.refusal('pauseConsumer', { consumerId: bob.consumers[0]?.id })).code).toBe(
      RTC_ERROR.notFound,
    );

    // One voice per member; audio only; well-formed data.
    await mallory.request('produce', { transportId: mallorySend?.id ?? '', ...params, kind: 'audio' });
    expect(await mallory.refusal('produce', { transportId: mallorySend?.id, ...params })).toEqual({
      code: RTC_ERROR.conflict,
      reason: 'already producing: one audio producer per member',
    });
    expect(
      (await mallory.refusal('produce', { transportId: mallorySend?.id, ...params, kind: 'video' })).code,
    ).toBe(RTC_ERROR.badRequest);
    for (const [method, data] of [
      ['createWebRtcTransport', { producing: 'yes', consuming: false }],
      ['join', { rtpCapabilities: { codecs: 'opus' } }],
      ['closeProducer', {}],
      ['kickPeer', { peerId: 42 }],
    ] as const) {
      expect((await mallory.refusal(method, data)).code, method).toBe(RTC_ERROR.badRequest);
    }
    expect(await mallory.refusal('join', { rtpCapabilities: {} })).toEqual({
      code: RTC_ERROR.conflict,
      reason: 'already joined',
    });
    expect(await mallory.refusal('createPlainTransport', {})).toEqual({
      code: RTC_ERROR.notFound,
      reason: 'unknown method createPlainTransport',
    });

    // Only the admin (or a moderator) mutes and kicks.
    expect(await mallory.refusal('mutePeer', { peerId: 'alice' })).toEqual({
      code: RTC_ERROR.forbidden,
      reason: 'only the room admin or a moderator may do this',
    });
    expect((await mallory.refusal('kickPeer', { peerId: 'alice' })).code).toBe(RTC_ERROR.forbidden);

    // A burst past the cap is refused with 429, and only for mallory.
    const burst = await Promise.allSettled(
      Array.from({ length: RTC_LIMITS.requestBurst + 10 }, () =>
        mallory.request('getRouterRtpCapabilities', {}),
      ),
    );
    const limited = burst.filter((result) => result.status === 'rejected');
    expect(limited.length).toBeGreaterThanOrEqual(10);
    expect((limited[0] as PromiseRejectedResult).reason).toMatchObject({ code: RTC_ERROR.tooManyRequests });

    await voice.send(30);
    await until(() => bobEar.socket.packets.length >= 10, 'RTP at bob while mallory misbehaves');
    await alice.request('pauseProducer', { producerId: voice.producerId });
  });

  it('closes a connection that sends a 2 MB frame or keeps sending junk, and no one else notices', async () => {
    const running = await start();
    const alice = await running.connect('room-1', 'alice');
    await join(alice);
    const raw = (peerId: string) =>
      new Promise<W3CWebSocket>((resolve, reject) => {
        const socket = new W3CWebSocket(running.url('room-1', peerId), 'protoo');
        socket.onopen = () => resolve(socket);
        socket.onerror = () => reject(new Error('raw socket failed'));
      });
    const closed = (socket: W3CWebSocket) =>
      new Promise<number>((resolve) => (socket.onclose = (event) => resolve(event.code)));

    const big = await raw('big');
    const bigClosed = closed(big);
    big.send(
      JSON.stringify({ request: true, id: 1, method: 'join', data: { device: 'x'.repeat(2 * 1024 * 1024) } }),
    );
    // The server drops it with 1009; the client, still sending, may only see the socket go (1006).
    expect([1006, 1009]).toContain(await bigClosed);

    const junk = await raw('junk');
    const junkClosed = closed(junk);
    for (const frame of [
      'not json',
      'null',
      '[]',
      '{"request":true}',
      '{"request":true,"id":-1,"method":"join"}',
    ]) {
      junk.send(frame);
      junk.send(frame);
    }
    expect(await junkClosed).toBe(1008); // policy violation

    expect(await alice.request('getRouterRtpCapabilities', {})).toMatchObject({ codecs: expect.any(Array) });
  });

  it('lets the admin mute and kick; a kicked member is told, disconnected and gone for the others', async () => {
    const running = await start();
    const admin = await running.connect('room-1', 'admin', { admin: true });
    const bob = await running.connect('room-1', 'bob');
    await join(admin);
    await join(bob);
    const voice = await running.speaker('room-1', bob, 'bob', 4444);
    await admin.peerCame('bob', (info) => !info.muted);

    await admin.request('mutePeer', { peerId: 'bob' });
    await bob.notification('peerMuted', (data) => data.peerId === 'bob' && data.muted);
    // A server mute holds until it is lifted; then bob may speak again (moderation.test.ts has more).
    expect((await bob.refusal('resumeProducer', { producerId: voice.producerId })).code).toBe(
      RTC_ERROR.forbidden,
    );
    await admin.request('unmutePeer', { peerId: 'bob' });
    await bob.request('resumeProducer', { producerId: voice.producerId });
    expect(await admin.refusal('kickPeer', { peerId: 'admin' })).toEqual({
      code: RTC_ERROR.badRequest,
      reason: 'not on yourself',
    });
    expect((await admin.refusal('mutePeer', { peerId: 'nobody' })).code).toBe(RTC_ERROR.notFound);

    await admin.request('kickPeer', { peerId: 'bob' });
    await bob.notification('kicked');
    await bob.untilClosed();
    await admin.peerLeft('bob');
    await until(() => running.members.at(-1)?.peers.join() === 'admin', 'the members without bob');
  });

  it('obeys RoomCommands from the bus: kick one member, close the room', async () => {
    const running = await start();
    const alice = await running.connect('room-1', 'alice');
    const bob = await running.connect('room-1', 'bob');
    await join(alice);
    await join(bob);
    await alice.peerCame('bob');

    await running.bus.publish(roomCommandsChannel, { type: 'kick', roomId: 'room-1', peerId: 'bob' });
    await bob.notification('kicked');
    await bob.untilClosed();
    await alice.peerLeft('bob');

    await running.bus.publish(roomCommandsChannel, { type: 'close', roomId: 'room-1' });
    await alice.notification('roomClosed');
    await alice.untilClosed();
    await until(() => running.media.rooms.get('room-1') === undefined, 'the room to go');
    expect(running.members.at(-1)).toEqual({ serverId: running.media.id, roomId: 'room-1', peers: [] });
    expect(running.media.load.routers).toBe(0);
  });

  it('obeys inCall from the bus: the person leaves the room they are in, told why; the others stay', async () => {
    const running = await start();
    const alice = await running.connect('room-1', 'alice');
    const bob = await running.connect('room-1', 'bob');
    const carol = await running.connect('room-2', 'carol');
    await running.listener('room-1', 'alice');
    for (const member of [alice, bob, carol]) await join(member);
    await alice.peerCame('bob');
    await running.speaker('room-1', bob, 'bob', 5555);
    await alice.until(() => alice.consumers.length === 1, "a consumer of bob's voice");
    const consumerId = alice.consumers[0]?.id;

    await running.bus.publish(roomCommandsChannel, { type: 'inCall', peerId: 'bob' });
    await bob.notification('inCall');
    await bob.untilClosed();
    // His voice goes with him: alice's consumer closes, and the room goes on without him.
    await alice.notification('consumerClosed', (data) => data.consumerId === consumerId);
    await alice.peerLeft('bob');
    await until(() => running.members.at(-1)?.peers.join() === 'alice', 'the members without bob');
    expect(
      running.media.rooms
        .get('room-2')
        ?.joinedPeers()
        .map((peer) => peer.id),
    ).toEqual(['carol']);
    expect(alice.received('inCall')).toEqual([]);
    expect(carol.received('peersChanged').flatMap((data) => data.left)).toEqual([]);
  });

  it('closes the room when its last member leaves, and keeps it for a member who reconnects', async () => {
    const running = await start();
    const alice = await running.connect('room-1', 'alice');
    await join(alice);
    const room = running.media.rooms.get('room-1');

    // The same person again: the older connection closes, the room stays.
    const again = await running.connect('room-1', 'alice');
    await alice.untilClosed();
    await new Promise((resolve) => setImmediate(resolve));
    expect(running.media.rooms.get('room-1')).toBe(room);
    expect(await join(again)).toMatchObject({ peers: [], next: null });

    await again.request('leave', {});
    await again.untilClosed();
    await until(() => running.media.rooms.get('room-1') === undefined, 'the room to close');
    expect(room?.router.closed).toBe(true);
    expect(running.media.load.routers).toBe(0);
  });

  it('rebuilds the room on a live worker when its worker dies: members reconnect and hear each other again', async () => {
    const running = await start(2);
    const alice = await running.connect('room-1', 'alice');
    const bob = await running.connect('room-1', 'bob');
    await running.listener('room-1', 'bob');
    await join(alice);
    await join(bob);
    await running.speaker('room-1', alice, 'alice', 5555);
    const before = running.media.pool.load.perWorker.find((worker) => worker.routers === 1);
    if (!before) throw new Error('no worker carries the room');

    process.kill(before.pid, 'SIGKILL');
    await alice.notification('reconnect');
    await bob.notification('reconnect');
    await alice.untilClosed();
    await bob.untilClosed();

    // As a client does: connect again with a fresh token and join again.
    const alice2 = await running.connect('room-1', 'alice');
    const bob2 = await running.connect('room-1', 'bob');
    const bobEar = await running.listener('room-1', 'bob');
    await join(alice2);
    await join(bob2);
    const voice = await running.speaker('room-1', alice2, 'alice', 5555);
    await bob2.until(() => bob2.consumers.length === 1, 'a newConsumer after the rebuild');
    await voice.send(40);
    await until(() => bobEar.socket.packets.length >= 10, 'RTP after the rebuild');
    const after = running.media.pool.load.perWorker.find((worker) => worker.routers === 1);
    expect(after?.pid).not.toBe(before.pid);
  });
});
