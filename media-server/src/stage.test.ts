import { RTC_LIMITS, RTC_REFUSALS, type RtcJoinReply } from '@voice/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { RTC_ERROR } from './errors.ts';
import { signRoomToken } from './testing/roomTokens.ts';
import { join, type TestListener, TestMediaServer, until } from './testing/TestMediaServer.ts';
import { handshakeStatus, type TestMember } from './testing/TestMember.ts';

// Stage rooms on a real media server (issue 21, item 2): only speakers produce, the audience
// raises hands, the admin and moderators invite a hand to speak and move speakers back.

const servers: TestMediaServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const STAGE = 'stage-1';

async function start(): Promise<TestMediaServer> {
  const server = await TestMediaServer.start({ rtcPorts: { min: 46000, max: 46199 } });
  servers.push(server);
  return server;
}

/** `member`'s latest `stage` notification. */
function roleOf(member: TestMember) {
  return member.received('stage').at(-1);
}

describe('a stage', () => {
  it('refuses a voice from the audience; a raised hand invited to speak is heard within a second; moved back, the voice is closed', async () => {
    const running = await start();
    const admin = await running.connect(STAGE, 'admin', { admin: true, stage: true });
    const ann = await running.connect(STAGE, 'ann', { stage: true });
    const ben = await running.connect(STAGE, 'ben', { stage: true });
    const ears = new Map<string, TestListener>();
    for (const [peerId, member] of [
      ['admin', admin],
      ['ann', ann],
      ['ben', ben],
    ] as const) {
      ears.set(peerId, await running.listener(STAGE, peerId));
      const reply = (await join(member)) as RtcJoinReply;
      expect(reply.stage).toBe(true);
      expect(reply.you).toMatchObject({ id: peerId, speaker: peerId === 'admin', handRaised: false });
    }
    const heard = (peerId: string) => (ears.get(peerId) as TestListener).socket.packets.length;

    // The admin speaks from the start; the audience sees them as a speaker.
    const adminVoice = await running.speaker(STAGE, admin, 'admin', 9101);
    await ann.peerCame('admin', (info) => info.speaker && !info.muted);
    await adminVoice.send(30, { intervalMs: 5 });
    await until(() => heard('ann') >= 15 && heard('ben') >= 15, "the admin's voice at ann and ben");

    // ann, in the audience, cannot talk.
    const produce = (transportId: string, ssrc: number) => ({
      transportId,
      kind: 'audio',
      rtpParameters: {
        codecs: [{ mimeType: 'audio/opus', payloadType: 100, clockRate: 48000, channels: 2 }],
        encodings: [{ ssrc }],
      },
    });
    const refused = await ann.refusal('produce', produce('any', 9102));
    expect(refused).toEqual({
      code: RTC_ERROR.forbidden,
      reason: `${RTC_REFUSALS.notASpeaker}: only speakers talk on this stage; raise your hand to ask`,
    });
    expect(running.room(STAGE).peer('ann')?.producer).toBeUndefined();

    // She raises her hand: she is told at once, the others with the next peersChanged.
    expect(await ann.request('raiseHand', { raised: true })).toEqual({});
    expect(roleOf(ann)).toEqual({ speaker: false, handRaised: true });
    await admin.peerCame('ann', (info) => info.handRaised && !info.speaker);
    await ben.peerCame('ann', (info) => info.handRaised);

    // The admin invites her; she talks and both others hear her within a second.
    expect(await admin.request('inviteToSpeak', { peerId: 'ann' })).toEqual({});
    await ann.until(() => roleOf(ann)?.speaker === true, 'ann told she may speak');
    expect(roleOf(ann)).toEqual({ speaker: true, handRaised: false });
    const annVoice = await running.speaker(STAGE, ann, 'ann', 9103);
    const [adminBefore, benBefore] = [heard('admin'), heard('ben')];
    const sending = annVoice.send(50, { intervalMs: 10 });
    await until(
      () => heard('admin') > adminBefore && heard('ben') > benBefore,
      "ann's voice at admin and ben",
    );
    await sending;
    await ben.peerCame('ann', (info) => info.speaker && !info.handRaised);

    // Moved back to the audience: her voice is closed on the server and at every listener.
    const consumerOfAnn = ben.consumers.find((consumer) => consumer.peerId === 'ann');
    expect(consumerOfAnn).toBeDefined();
    expect(await admin.request('moveToAudience', { peerId: 'ann' })).toEqual({});
    expect(running.room(STAGE).peer('ann')?.producer).toBeUndefined();
    await ann.until(() => roleOf(ann)?.speaker === false, 'ann told she is in the audience');
    await ben.notification('consumerClosed', (data) => data.consumerId === consumerOfAnn?.id);
    await ben.peerCame('ann', (info) => !info.speaker);
    expect(await ann.refusal('produce', produce(annVoice.transportId, 9104))).toEqual(refused);

    // A reconnect keeps her place in the audience.
    ann.close();
    await admin.peerLeft('ann');
    const back = await running.connect(STAGE, 'ann', { stage: true });
    const reply = (await join(back)) as RtcJoinReply;
    expect(reply.you.speaker).toBe(false);
  });

  it('lets only the admin and moderators invite and move, only hands be invited, and a speaker step down', async () => {
    const running = await start();
    const admin = await running.connect(STAGE, 'admin', { admin: true, stage: true });
    const mod = await running.connect(STAGE, 'mod', { moderator: true, stage: true });
    const ann = await running.connect(STAGE, 'ann', { stage: true });
    const ben = await running.connect(STAGE, 'ben', { stage: true });
    for (const member of [admin, mod, ann, ben]) await join(member);

    // Someone in the audience invites nobody and moves nobody.
    await ben.request('raiseHand', { raised: true });
    for (const method of ['inviteToSpeak', 'moveToAudience']) {
      const refused = await ann.refusal(method, { peerId: method === 'inviteToSpeak' ? 'ben' : 'admin' });
      expect(refused).toEqual({
        code: RTC_ERROR.forbidden,
        reason: 'only the room admin or a moderator may do this',
      });
    }
    // A hand must be up to be invited; nobody is invited who is not here.
    expect(await mod.refusal('inviteToSpeak', { peerId: 'ann' })).toEqual({
      code: RTC_ERROR.conflict,
      reason: 'only someone who raised their hand can be invited to speak',
    });
    expect(await mod.refusal('inviteToSpeak', { peerId: 'nobody' })).toEqual({
      code: RTC_ERROR.notFound,
      reason: 'peer "nobody" not found',
    });
    expect(await mod.refusal('moveToAudience', { peerId: 'nobody' })).toEqual({
      code: RTC_ERROR.notFound,
      reason: 'peer "nobody" not found',
    });
    // A moderator moves neither the admin nor another moderator; a speaker has no hand to raise.
    expect(await mod.refusal('moveToAudience', { peerId: 'admin' })).toEqual({
      code: RTC_ERROR.forbidden,
      reason: 'a moderator may not do this to the admin or another moderator',
    });
    expect(await admin.refusal('raiseHand', { raised: true })).toEqual({
      code: RTC_ERROR.conflict,
      reason: 'you are a speaker already: there is no hand to raise',
    });
    expect(await admin.refusal('inviteToSpeak', { peerId: 'mod' })).toEqual({
      code: RTC_ERROR.conflict,
      reason: 'already a speaker',
    });
    expect(await ann.refusal('moveToAudience', { peerId: 'ann' })).toEqual({
      code: RTC_ERROR.conflict,
      reason: 'not a speaker',
    });

    // The moderator invites ben's hand; the moderator steps down, then invites themselves back.
    expect(await mod.request('inviteToSpeak', { peerId: 'ben' })).toEqual({});
    await ben.until(() => roleOf(ben)?.speaker === true, 'ben invited');
    expect(await mod.request('moveToAudience', { peerId: 'mod' })).toEqual({});
    expect(roleOf(mod)).toEqual({ speaker: false, handRaised: false });
    expect(await mod.request('inviteToSpeak', { peerId: 'mod' })).toEqual({});
    await mod.until(() => roleOf(mod)?.speaker === true, 'mod back on the stage');
  });

  it('answers bad input and a flood of hands with clear errors and goes on serving', async () => {
    const running = await start();
    const admin = await running.connect(STAGE, 'admin', { admin: true, stage: true });
    const ann = await running.connect(STAGE, 'ann', { stage: true });
    for (const member of [admin, ann]) await join(member);

    for (const data of [{}, { raised: 'yes' }, { raised: true, extra: 1 }, null]) {
      const refused = await ann.refusal('raiseHand', data);
      expect(refused.code).toBe(RTC_ERROR.badRequest);
      expect(refused.reason).toMatch(/^raiseHand: /);
    }
    for (const data of [{}, { peerId: '' }, { peerId: 'x'.repeat(201) }, { peerId: 7 }]) {
      expect((await admin.refusal('inviteToSpeak', data)).code).toBe(RTC_ERROR.badRequest);
      expect((await admin.refusal('moveToAudience', data)).code).toBe(RTC_ERROR.badRequest);
    }

    // Waving a hand up and down: past the burst, 429, and the hand stays as last set.
    const answers = await Promise.allSettled(
      Array.from({ length: RTC_LIMITS.handRaiseBurst + 4 }, (_, i) =>
        ann.request('raiseHand', { raised: i % 2 === 0 }),
      ),
    );
    const refused = answers.filter((answer) => answer.status === 'rejected');
    expect(refused.length).toBeGreaterThanOrEqual(3);
    for (const answer of refused) {
      expect((answer as PromiseRejectedResult).reason).toMatchObject({
        code: RTC_ERROR.tooManyRequests,
        message: 'too many hand raises',
      });
    }
    // Still serving: the admin's requests and a later hand are answered.
    expect(await admin.request('getPeers', { from: 0 })).toMatchObject({ next: null });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await ann.request('raiseHand', { raised: true })).toEqual({});
    await admin.peerCame('ann', (info) => info.handRaised);
  });

  it("seats a stage's audience on one port each (they only receive), a speaker on two", async () => {
    // Six ports: the admin speaks (two), four listen (one each), and then the worker is full.
    const running = await TestMediaServer.start({ rtcPorts: { min: 26200, max: 26205 } });
    servers.push(running);
    const seats = () => running.media.rooms.announced()[0]?.seats;
    await join(await running.connect(STAGE, 'admin', { admin: true, stage: true }));
    expect(seats()).toBe(4);
    for (const peerId of ['ann', 'ben', 'cat', 'dan']) {
      await join(await running.connect(STAGE, peerId, { stage: true }));
    }
    expect(seats()).toBe(0);
    expect(
      await handshakeStatus(running.url(STAGE, 'eve', signRoomToken(STAGE, 'eve', { stage: true }))),
    ).toBe(RTC_ERROR.conflict);
    // In a room that is no stage the same six ports hold three members.
    const plain = await TestMediaServer.start({ rtcPorts: { min: 26210, max: 26215 } });
    servers.push(plain);
    for (const peerId of ['ann', 'ben', 'cat']) await join(await plain.connect('plain', peerId));
    expect(plain.media.rooms.announced()[0]?.seats).toBe(0);
    expect(await handshakeStatus(plain.url('plain', 'dan'))).toBe(RTC_ERROR.conflict);
  });

  it("counts a raised hand's sending transport, made ahead of the invitation, as its second port; a hand invited on a full worker is told so and the room goes on", async () => {
    // Five ports: the admin speaks (two), ann and ben listen (one each), one is left.
    const running = await TestMediaServer.start({ rtcPorts: { min: 26220, max: 26224 } });
    servers.push(running);
    const seats = () => running.media.rooms.announced()[0]?.seats;
    const admin = await running.connect(STAGE, 'admin', { admin: true, stage: true });
    await join(admin);
    await admin.request('createWebRtcTransport', { producing: true, consuming: false });
    await admin.request('createWebRtcTransport', { producing: false, consuming: true });
    const [ann, ben] = [
      await running.connect(STAGE, 'ann', { stage: true }),
      await running.connect(STAGE, 'ben', { stage: true }),
    ];
    for (const member of [ann, ben]) {
      await join(member);
      await member.request('createWebRtcTransport', { producing: false, consuming: true });
    }
    expect(seats()).toBe(1);
    // Ann raises her hand and makes her sending transport: the last port is hers.
    await ann.request('raiseHand', { raised: true });
    await ann.request('createWebRtcTransport', { producing: true, consuming: false });
    expect(seats()).toBe(0);
    // Ben is invited too, but his worker has no port left for his voice: a clear refusal.
    await ben.request('raiseHand', { raised: true });
    await admin.request('inviteToSpeak', { peerId: 'ben' });
    expect(await ben.refusal('createWebRtcTransport', { producing: true, consuming: false })).toEqual({
      code: RTC_ERROR.conflict,
      reason: 'Room is full: this media server has no ports left',
    });
    // The room goes on: ann, invited, speaks with the transport she made.
    await admin.request('inviteToSpeak', { peerId: 'ann' });
    await until(() => roleOf(ann)?.speaker === true, 'ann invited');
    expect(seats()).toBe(0);
  });

  it('is no stage in a room whose tokens say it is none: everyone speaks and there are no hands', async () => {
    const running = await start();
    const ann = await running.connect('plain', 'ann');
    const reply = (await join(ann)) as RtcJoinReply;
    expect(reply.stage).toBe(false);
    expect(reply.you).toMatchObject({ speaker: true, handRaised: false });
    await running.speaker('plain', ann, 'ann', 9201);
    for (const [method, data] of [
      ['raiseHand', { raised: true }],
      ['inviteToSpeak', { peerId: 'ann' }],
      ['moveToAudience', { peerId: 'ann' }],
    ] as const) {
      expect(await ann.refusal(method, data)).toEqual({
        code: RTC_ERROR.conflict,
        reason: 'this room is not a stage',
      });
    }
  });
});
