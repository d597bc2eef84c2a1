import { roomCommandsChannel, roomKicksChannel } from '@voice/bus';
import { type RoomKick, RTC_REFUSALS } from '@voice/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { RTC_ERROR } from './errors.ts';
import { join, TestMediaServer } from './testing/TestMediaServer.ts';
import type { TestMember } from './testing/TestMember.ts';

// Moderation on a real media server (issue 19, item 6): server mutes the muted person cannot
// undo, moderators with the admin's mute and kick, removals told to the API, the acting admin.

const servers: TestMediaServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(): Promise<TestMediaServer> {
  const server = await TestMediaServer.start({ rtcPorts: { min: 43400, max: 43599 } });
  servers.push(server);
  return server;
}

const mutedByAdmin = { id: 'admin', displayName: 'Person admin' };

/** The next `peerMuted` of `peerId` that `member` receives after those received so far. */
async function nextPeerMuted(member: TestMember, peerId: string) {
  const seen = member.received('peerMuted').length;
  await member.until(
    () =>
      member
        .received('peerMuted')
        .slice(seen)
        .some((data) => data.peerId === peerId),
    `peerMuted of ${peerId}`,
  );
  return member
    .received('peerMuted')
    .slice(seen)
    .find((data) => data.peerId === peerId);
}

/** The latest `actingAdmin` `member` was told of (undefined: none yet). */
function actingAdminOf(member: TestMember): string | null | undefined {
  return member.received('actingAdmin').at(-1)?.peerId;
}

describe('mutePeer', () => {
  it('mutePeer by the admin holds: the muted member cannot resume until unmutePeer, and everyone hears who did it', async () => {
    const running = await start();
    const admin = await running.connect('room-1', 'admin', { admin: true });
    const bob = await running.connect('room-1', 'bob');
    const carol = await running.connect('room-1', 'carol');
    for (const member of [admin, bob, carol]) await join(member);
    const voice = await running.speaker('room-1', bob, 'bob', 5151);
    await carol.peerCame('bob', (info) => !info.muted);

    expect(await admin.request('mutePeer', { peerId: 'bob' })).toEqual({});
    for (const member of [admin, bob, carol]) {
      expect(await member.notification('peerMuted', (data) => data.peerId === 'bob' && data.muted)).toEqual({
        peerId: 'bob',
        muted: true,
        mutedBy: mutedByAdmin,
      });
    }
    expect(running.room('room-1').peer('bob')?.producer?.paused).toBe(true);

    const refused = await bob.refusal('resumeProducer', { producerId: voice.producerId });
    expect(refused.code).toBe(RTC_ERROR.forbidden);
    expect(refused.reason).toBe(
      `${RTC_REFUSALS.mutedByModerator}: Person admin muted you; only a moderator can unmute you`,
    );
    expect(running.room('room-1').peer('bob')?.producer?.paused).toBe(true);
    // Pausing (staying muted) is still theirs to do.
    expect(await bob.request('pauseProducer', { producerId: voice.producerId })).toEqual({});

    const lifted = nextPeerMuted(carol, 'bob');
    expect(await admin.request('unmutePeer', { peerId: 'bob' })).toEqual({});
    // Lifted, not unmuted: nobody but bob turns his microphone back on.
    expect(await lifted).toEqual({ peerId: 'bob', muted: true, mutedBy: null });
    expect(await bob.request('resumeProducer', { producerId: voice.producerId })).toEqual({});
    await carol.peerCame('bob', (info) => !info.muted);
    expect(running.errors).toEqual([]);
  });

  it('mutePeer holds across a new connection: the member comes back muted, their voice paused', async () => {
    const running = await start();
    const admin = await running.connect('room-1', 'admin', { admin: true });
    const bob = await running.connect('room-1', 'bob');
    await join(admin);
    await join(bob);
    await admin.peerCame('bob');
    await admin.request('mutePeer', { peerId: 'bob' });
    await bob.notification('peerMuted', (data) => data.peerId === 'bob' && data.muted);
    bob.close();
    await admin.peerLeft('bob');

    const again = await running.connect('room-1', 'bob');
    const { peers } = await join(again);
    expect(peers).toEqual([expect.objectContaining({ id: 'admin', mutedBy: null })]);
    const bobAgain = await admin.peerCame('bob', (info) => info.mutedBy !== null);
    expect(bobAgain).toMatchObject({ id: 'bob', mutedBy: mutedByAdmin, muted: true });
    const voice = await running.speaker('room-1', again, 'bob', 5252);
    expect(running.room('room-1').peer('bob')?.producer?.paused).toBe(true);
    expect((await again.refusal('resumeProducer', { producerId: voice.producerId })).code).toBe(
      RTC_ERROR.forbidden,
    );
  });

  it('mutePeer, unmutePeer and kickPeer refuse bad input, other rooms, non-moderators and moderators on their peers, and the server goes on', async () => {
    const running = await start();
    const admin = await running.connect('room-1', 'admin', { admin: true });
    const mod = await running.connect('room-1', 'mod', { moderator: true });
    const mod2 = await running.connect('room-1', 'mod2', { moderator: true });
    const bob = await running.connect('room-1', 'bob');
    const eve = await running.connect('room-2', 'eve', { admin: true });
    for (const member of [admin, mod, mod2, bob, eve]) await join(member);

    for (const method of ['mutePeer', 'unmutePeer', 'kickPeer']) {
      for (const data of [{}, { peerId: 42 }, { peerId: '' }, { peerId: 'x'.repeat(201) }, null, 'bob']) {
        expect((await mod.refusal(method, data)).code, `${method} ${JSON.stringify(data)}`).toBe(
          RTC_ERROR.badRequest,
        );
      }
      // Someone in another room is nobody here, for that room's admin too.
      expect(await eve.refusal(method, { peerId: 'bob' })).toEqual({
        code: RTC_ERROR.notFound,
        reason: 'peer "bob" not found',
      });
      expect(await mod.refusal(method, { peerId: 'mod' })).toEqual({
        code: RTC_ERROR.badRequest,
        reason: 'not on yourself',
      });
      expect(await bob.refusal(method, { peerId: 'mod' })).toEqual({
        code: RTC_ERROR.forbidden,
        reason: 'only the room admin or a moderator may do this',
      });
      for (const peerId of ['admin', 'mod2']) {
        expect(await mod.refusal(method, { peerId })).toEqual({
          code: RTC_ERROR.forbidden,
          reason: 'a moderator may not do this to the admin or another moderator',
        });
      }
    }
    expect(running.room('room-1').peer('admin')?.mutedBy).toBeNull();

    // The admin may act on moderators; a moderator on members.
    expect(await admin.request('mutePeer', { peerId: 'mod2' })).toEqual({});
    const muted = nextPeerMuted(bob, 'bob');
    expect(await mod.request('mutePeer', { peerId: 'bob' })).toEqual({});
    expect(await muted).toEqual({
      peerId: 'bob',
      muted: true,
      mutedBy: { id: 'mod', displayName: 'Person mod' },
    });
    expect(await mod.request('unmutePeer', { peerId: 'bob' })).toEqual({});
    expect(running.room('room-1').peer('bob')?.mutedBy).toBeNull();
    expect(await mod.request('getRouterRtpCapabilities', {})).toMatchObject({ codecs: expect.any(Array) });
    expect(running.errors).toEqual([]);
  });
});

describe('kickPeer', () => {
  it('kickPeer by a moderator tells the API who removed whom before the member hears it', async () => {
    const running = await start();
    const kicks: RoomKick[] = [];
    await running.bus.subscribe(roomKicksChannel, (kick) => kicks.push(kick));
    const mod = await running.connect('room-1', 'mod', { moderator: true });
    const bob = await running.connect('room-1', 'bob');
    await join(mod);
    await join(bob);

    expect(await mod.request('kickPeer', { peerId: 'bob' })).toEqual({});
    await bob.notification('kicked');
    await bob.untilClosed();
    expect(kicks).toEqual([{ roomId: 'room-1', peerId: 'bob', by: 'mod' }]);
  });
});

describe('actingAdmin', () => {
  it('actingAdmin names the longest-present moderator, else member, while the admin is away, and null when the admin returns', async () => {
    const running = await start();
    const alice = await running.connect('room-1', 'alice');
    await join(alice);
    // Alone and no admin: alice stands in.
    await alice.until(() => actingAdminOf(alice) === 'alice', 'alice acting');

    const admin = await running.connect('room-1', 'admin', { admin: true });
    await join(admin);
    await alice.until(() => actingAdminOf(alice) === null, 'no acting admin with the admin in');
    const carol = await running.connect('room-1', 'carol');
    await join(carol);
    const mod = await running.connect('room-1', 'mod', { moderator: true });
    await join(mod);
    expect(running.room('room-1').actingAdmin).toBeNull();
    // Nothing to say to a newcomer while the admin is in.
    expect(actingAdminOf(carol)).toBeUndefined();

    admin.close();
    // The moderator, though the last to come.
    for (const member of [alice, carol, mod]) {
      await member.until(() => actingAdminOf(member) === 'mod', 'the moderator acting');
    }
    mod.close();
    await carol.until(() => actingAdminOf(carol) === 'alice', 'the longest-present member acting');

    // The admin names carol a moderator over the API: she stands in now, and may mute.
    await running.bus.publish(roomCommandsChannel, {
      type: 'moderator',
      roomId: 'room-1',
      peerId: 'carol',
      moderator: true,
    });
    expect(await alice.notification('peerRole')).toEqual({ peerId: 'carol', moderator: true });
    await alice.until(() => actingAdminOf(alice) === 'carol', 'the new moderator acting');
    expect(await carol.request('mutePeer', { peerId: 'alice' })).toEqual({});

    const back = await running.connect('room-1', 'admin', { admin: true });
    await join(back);
    await carol.until(() => actingAdminOf(carol) === null, 'the admin back');
    expect(running.room('room-1').actingAdmin).toBeNull();
    expect(running.errors).toEqual([]);
  });
});
