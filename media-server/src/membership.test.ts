import { RTC_LIMITS } from '@voice/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { RTC_ERROR } from './errors.ts';
import { join, TestMediaServer, until } from './testing/TestMediaServer.ts';
import type { TestMember } from './testing/TestMember.ts';

// Signalling that does not grow with the room squared: joins and leaves gathered into
// `peersChanged` (at most RTC_LIMITS.membershipPerSecond a second for each member), and the
// member list paged past RTC_LIMITS.peersPage. Members here send and receive nothing.

const servers: TestMediaServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(): Promise<TestMediaServer> {
  const server = await TestMediaServer.start({ rtcPorts: { min: 44400, max: 45599 } });
  servers.push(server);
  return server;
}

const id = (i: number) => `p${String(i).padStart(3, '0')}`;

describe('room membership', () => {
  it('while a room fills, each member gets at most two peersChanged a second, which miss nobody', async () => {
    const running = await start();
    const first = await running.connect('room-1', 'first');
    await join(first);
    const startedAt = performance.now();
    const others: TestMember[] = [];
    for (let i = 0; i < 60; i++) {
      const member = await running.connect('room-1', id(i));
      await join(member);
      others.push(member);
      if (i % 10 === 9) (others.shift() as TestMember).close();
    }
    // Applied in order (left first), the messages give the room as it is.
    const view = () => {
      const known = new Set<string>();
      for (const { peers, left } of first.received('peersChanged')) {
        for (const peerId of left) known.delete(peerId);
        for (const peer of peers) known.add(peer.id);
      }
      return [...known].sort();
    };
    const inRoom = () =>
      running
        .room('room-1')
        .joinedPeers()
        .map((peer) => peer.id)
        .filter((peerId) => peerId !== 'first')
        .sort();
    await until(() => inRoom().length === 54, 'the leaves at the server');
    await first.until(() => view().join() === inRoom().join(), 'the room as it is');
    expect(view()).toHaveLength(54);
    const seconds = (performance.now() - startedAt) / 1000;
    // The first is sent at once, the others at most membershipPerSecond a second.
    expect(first.received('peersChanged').length).toBeLessThanOrEqual(
      Math.ceil(seconds * RTC_LIMITS.membershipPerSecond) + 1,
    );
    // Nobody is told of themselves.
    const self = first
      .received('peersChanged')
      .flatMap(({ peers }) => peers.filter((peer) => peer.id === 'first'));
    expect(self).toEqual([]);
  });

  it(`the join reply holds the first ${RTC_LIMITS.peersPage} members; getPeers reads on; bad pages are refused`, async () => {
    const running = await start();
    const count = RTC_LIMITS.peersPage + 5;
    for (let i = 0; i < count; i++) await join(await running.connect('room-1', id(i)));
    const last = await running.connect('room-1', 'last');
    const page = await join(last);
    expect(page.peers).toHaveLength(RTC_LIMITS.peersPage);
    expect(page.peers[0]?.id).toBe(id(0));
    expect(page.next).not.toBeNull();
    const rest = await last.request('getPeers', { from: page.next as number });
    expect(rest.peers.map((peer) => peer.id)).toEqual(
      [1, 2, 3, 4, 5].map((n) => id(RTC_LIMITS.peersPage - 1 + n)),
    );
    expect(rest.next).toBeNull();
    // From anywhere past the end: nothing.
    expect(await last.request('getPeers', { from: 1_000_000 })).toEqual({ peers: [], next: null });

    for (const data of [
      {},
      { from: -1 },
      { from: 1.5 },
      { from: '1' },
      { from: null },
      { from: 1, extra: true },
      null,
    ]) {
      expect((await last.refusal('getPeers', data)).code, JSON.stringify(data)).toBe(RTC_ERROR.badRequest);
    }
    // Before joining: refused, like every request of a member.
    const early = await running.connect('room-1', 'early');
    expect((await early.refusal('getPeers', { from: 0 })).code).toBe(RTC_ERROR.forbidden);
    // Still serving.
    expect((await last.request('getPeers', { from: 0 })).peers).toHaveLength(RTC_LIMITS.peersPage);
    expect(running.errors).toEqual([]);
  }, 60_000);
});
