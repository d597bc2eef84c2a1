import { afterEach, describe, expect, it } from 'vitest';
import type { Peer } from './Peer.ts';
import { join, type TestListener, TestMediaServer, until } from './testing/TestMediaServer.ts';
import type { Router } from './types.ts';

// A room across workers: once its router holds the consumer budget (set low here), new members
// go to a router of the same room on the other worker, every voice piped between the two, and a
// worker that dies takes only its part of the room.

const servers: TestMediaServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const ROOM = 'across';

describe('a room across workers', () => {
  it('goes on on another worker past the consumer budget; members on each hear the other; a dead part leaves the rest forwarding', async () => {
    const running = await TestMediaServer.start({
      numWorkers: 2,
      rtcPorts: { min: 45600, max: 45799 },
      consumerBudget: 4,
    });
    servers.push(running);
    const ears = new Map<string, TestListener>();
    const enter = async (peerId: string) => {
      const member = await running.connect(ROOM, peerId);
      ears.set(peerId, await running.listener(ROOM, peerId));
      await join(member);
      return member;
    };
    const heard = (peerId: string) => (ears.get(peerId) as TestListener).socket.packets.length;
    const consumers = (peerId: string) => (running.room(ROOM).peer(peerId) as Peer).consumerCount;

    // alice and bob talk; carol listens: the room's own router holds four consumers.
    const alice = await enter('alice');
    const bob = await enter('bob');
    const aliceVoice = await running.speaker(ROOM, alice, 'alice', 8001);
    const bobVoice = await running.speaker(ROOM, bob, 'bob', 8002);
    await enter('carol');
    await until(() => consumers('alice') + consumers('bob') + consumers('carol') === 4, 'four consumers');
    const room = running.room(ROOM);
    expect(room.routers).toHaveLength(1);
    // Its worker holds a port for the pipe to the other worker before there is one: 100 ports,
    // alice, bob and carol take 6, the pipe to come 1.
    const seats = running.media.rooms;
    expect(seats.seatsOn(room.routers[0] as Router)).toBe(Math.floor((100 - 6 - 1) / 2));

    // dave goes to a second router, on the other worker, and hears both through the pipes.
    const dave = await enter('dave');
    expect(room.routers).toHaveLength(2);
    const [own, second] = room.routers as [Router, Router];
    expect(room.routerOf('dave')).toBe(second);
    expect(room.routerOf('alice')).toBe(own);
    expect(running.media.pool.pidOf(second)).not.toBe(running.media.pool.pidOf(own));
    await dave.until(() => dave.consumers.length === 2, "dave's consumers of alice and bob");
    await aliceVoice.send(40, { intervalMs: 5 });
    await until(() => heard('dave') >= 20, "alice's voice at dave, piped");

    // The pipe between the two parts holds a port on each worker, counted as the members' are:
    // 100 ports a worker; alice, bob and carol take 6 on the first, dave 2 on the second.
    expect(seats.seatsOn(own)).toBe(Math.floor((100 - 6 - 1) / 2));
    expect(seats.seatsOn(second)).toBe(Math.floor((100 - 2 - 1) / 2));

    // dave talks: alice, on the room's own router, hears him.
    const daveVoice = await running.speaker(ROOM, dave, 'dave', 8004);
    await alice.until(() => alice.consumers.some((c) => c.peerId === 'dave'), "alice's consumer of dave");
    const aliceBefore = heard('alice');
    await daveVoice.send(40, { intervalMs: 5 });
    await until(() => heard('alice') - aliceBefore >= 20, "dave's voice at alice");

    // The second worker dies: dave is asked to join again; alice still hears bob.
    process.kill(running.media.pool.pidOf(second) as number, 'SIGKILL');
    await dave.notification('reconnect');
    await dave.untilClosed();
    expect(room.closed).toBe(false);
    expect(room.routers).toEqual([own]);
    const before = heard('alice');
    await bobVoice.send(40, { intervalMs: 5 });
    await until(() => heard('alice') - before >= 20, "bob's voice at alice after the other worker died");
    expect(alice.closed).toBe(false);
  });
});
