import { mediaAnnounceChannel, roomCommandsChannel } from '@voice/bus';
import type { MediaServerAnnouncement } from '@voice/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { join, TestMediaServer, until } from './testing/TestMediaServer.ts';
import { handshakeStatus, TestMember } from './testing/TestMember.ts';

// What a media server tells the API processes so they can heal what Redis lost: the rooms it
// holds in every announcement, and their members again when asked (`resync`).

const servers: TestMediaServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(): Promise<TestMediaServer> {
  const server = await TestMediaServer.start({ rtcPorts: { min: 43600, max: 43699 } });
  servers.push(server);
  return server;
}

/** alice and bob joined in room-1, carol connected to room-2; the announcements heard meanwhile. */
async function twoRooms() {
  const running = await start();
  const heard: MediaServerAnnouncement[] = [];
  await running.bus.subscribe(mediaAnnounceChannel, (announcement) => heard.push(announcement));
  const alice = await running.connect('room-1', 'alice');
  const bob = await running.connect('room-1', 'bob');
  await running.connect('room-2', 'carol');
  await join(alice);
  await join(bob);
  return { running, heard, alice, bob };
}

describe('RoomRegistry', () => {
  it('a room takes no more members than its worker has ports for; someone coming back still gets in', async () => {
    // Six ports: three members, two ports each.
    const running = await TestMediaServer.start({ rtcPorts: { min: 24300, max: 24305 } });
    servers.push(running);
    for (const peerId of ['alice', 'bob']) await join(await running.connect('room-1', peerId));
    await running.connect('room-2', 'carol');
    const seats = () => running.media.rooms.announced().map((room) => room.seats);
    expect(seats()).toEqual([0, 0]);
    expect(await handshakeStatus(running.url('room-1', 'dave'))).toBe(409);
    expect(await handshakeStatus(running.url('room-3', 'erin'))).toBe(409);
    await expect(TestMember.connect(running.url('room-1', 'dave'))).rejects.toThrow();
    // Bob reconnecting takes the place of his own connection.
    const bobAgain = await running.connect('room-1', 'bob');
    await join(bobAgain);
    expect(
      running
        .room('room-1')
        .joinedPeers()
        .map((peer) => peer.id)
        .sort(),
    ).toEqual(['alice', 'bob']);
    // Someone leaving frees their ports.
    bobAgain.close();
    await until(() => seats()[0] === 1, 'a free seat');
    await join(await running.connect('room-1', 'dave'));
    expect(running.errors).toEqual([]);
  });

  it('rooms.announced() lists the open rooms with their joined members, and announcements carry it', async () => {
    const { running, heard } = await twoRooms();
    // Carol is connected but has not joined: her room is held, with nobody in it yet.
    // One worker of 100 ports holds 50 members; the three connected take three of them.
    expect(running.media.rooms.announced().sort((a, b) => a.id.localeCompare(b.id))).toEqual([
      { id: 'room-1', peers: 2, seats: 47 },
      { id: 'room-2', peers: 0, seats: 47 },
    ]);
    await until(
      () => heard.some((announcement) => announcement.rooms?.some((room) => room.peers === 2)),
      'an announcement with the rooms',
      5000,
    );
    expect(heard.at(-1)).toMatchObject({ id: running.media.id, rooms: expect.any(Array) });
  });

  it('the announced load carries the joined members and the consumers they hold', async () => {
    const { running, heard, alice, bob } = await twoRooms();
    await running.listener('room-1', 'bob');
    expect(running.media.load).toMatchObject({ workers: 1, routers: 2, members: 2, consumers: 0 });
    await running.speaker('room-1', alice, 'alice', 3001);
    await bob.until(() => bob.consumers.length === 1, 'a newConsumer');
    expect(running.media.load).toMatchObject({ workers: 1, routers: 2, members: 2, consumers: 1 });
    // And its worker's measured CPU, in shares of a core.
    expect(running.media.load.cpu).toBeGreaterThanOrEqual(0);
    await until(
      () => heard.some((announcement) => announcement.load.consumers === 1),
      'an announcement with the consumer',
      5000,
    );
    expect(heard.at(-1)?.load).toMatchObject({ members: 2, consumers: 1 });
  });

  it('a resync for this server publishes the rooms asked for once, an empty list for one it does not hold', async () => {
    const running = await start();
    const alice = await running.connect('room-1', 'alice');
    await join(alice);
    await until(() => running.members.length === 1, 'the join');

    // Asked by two API processes at once, and once for another server: one answer per room.
    const ask = { type: 'resync' as const, serverId: running.media.id, roomIds: ['room-1', 'gone'] };
    await running.bus.publish(roomCommandsChannel, ask);
    await running.bus.publish(roomCommandsChannel, ask);
    await running.bus.publish(roomCommandsChannel, { ...ask, serverId: 'another-server' });
    await until(() => running.members.length === 3, 'the members said again');
    expect(running.members.slice(1).sort((a, b) => a.roomId.localeCompare(b.roomId))).toEqual([
      { serverId: running.media.id, roomId: 'gone', peers: [] },
      { serverId: running.media.id, roomId: 'room-1', peers: ['alice'] },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(running.members).toHaveLength(3);
  });
});
