/**
 * A media server that announces `draining` (issue 22, item 2): the API places no new room there,
 * moves the rooms it holds to another server when their members ask again, and does not let the
 * draining server's last member lists overwrite where the members went.
 */
import { MemoryBus, mediaAnnounceChannel, roomMembersChannel } from '@voice/bus';
import type { AnnouncedRoom, MediaServerLoad } from '@voice/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import { MediaServers } from '../mediaServers/MediaServers.ts';
import { MemoryMemberStore } from './MemberStore.ts';
import { MemoryPlacementStore } from './PlacementStore.ts';
import { RoomMembership } from './RoomMembership.ts';
import { RoomPlacements } from './RoomPlacements.ts';

const logger = createLogger('error', 'test');
const LOAD: MediaServerLoad = { workers: 2, routers: 1, members: 2, consumers: 2 };
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function apiOnBus() {
  const bus = new MemoryBus(logger);
  const servers = await MediaServers.create(bus, logger);
  const store = new MemoryMemberStore();
  const membership = await RoomMembership.create(bus, store, servers, logger);
  const placements = new RoomPlacements(new MemoryPlacementStore(), servers, membership);
  closers.push(
    () => bus.close(),
    () => servers.close(),
    () => membership.close(),
  );
  const announce = (
    id: string,
    rooms: AnnouncedRoom[],
    extra: { draining?: true; load?: MediaServerLoad } = {},
  ) =>
    bus.publish(mediaAnnounceChannel, {
      id,
      url: `ws://${id}.media.test/rtc`,
      load: extra.load ?? LOAD,
      rooms,
      ...(extra.draining ? { draining: true as const } : {}),
    });
  const members = (serverId: string, roomId: string, peers: string[]) =>
    bus.publish(roomMembersChannel, { serverId, roomId, peers });
  return { servers, membership, placements, announce, members };
}

describe('a draining media server', () => {
  it('takes no new room, and the rooms it holds go elsewhere when their members ask again', async () => {
    const { servers, placements, announce } = await apiOnBus();
    // `a` is the idler, so it gets the room while both are in service.
    await announce('a', [], { load: { workers: 2, routers: 0, members: 0, consumers: 0 } });
    await announce('b', []);
    expect((await placements.place('room-1')).id).toBe('a');
    await announce('a', [{ id: 'room-1', peers: 2, seats: 40 }], { load: LOAD });
    expect((await placements.place('room-1')).id).toBe('a');

    await announce('a', [{ id: 'room-1', peers: 2, seats: 40 }], {
      draining: true,
      load: { workers: 2, routers: 0, members: 0, consumers: 0 },
    });
    // Still known (its members are connected to it), no longer chosen, though it is the idler.
    expect(servers.get('a')?.draining).toBe(true);
    expect(servers.origins()).toContain('ws://a.media.test');
    expect(servers.leastLoaded()?.id).toBe('b');
    expect((await placements.place('room-1')).id).toBe('b');
    // And it stays there: every member who asks goes to the same place.
    expect((await placements.place('room-1')).id).toBe('b');
    expect((await placements.place('room-2')).id).toBe('b');
  });

  it("does not overwrite with its last lists the members who moved to the room's new place", async () => {
    const { membership, announce, members } = await apiOnBus();
    await announce('a', [{ id: 'room-1', peers: 2 }]);
    await announce('b', []);
    await members('a', 'room-1', ['alice', 'bob']);
    await expect.poll(() => membership.peersIn('room-1')).toEqual(['alice', 'bob']);

    await announce('a', [{ id: 'room-1', peers: 2 }], { draining: true });
    // Alice left `a` before she arrived at `b`: that list still counts.
    await members('a', 'room-1', ['bob']);
    await expect.poll(() => membership.peersIn('room-1')).toEqual(['bob']);
    await members('b', 'room-1', ['alice']);
    await expect.poll(() => membership.peersIn('room-1')).toEqual(['alice']);
    // Bob leaves `a` (its room empties) and arrives at `b`: `a`'s empty list is not the room's.
    await members('a', 'room-1', []);
    await members('b', 'room-1', ['alice', 'bob']);
    await expect.poll(() => membership.peersIn('room-1')).toEqual(['alice', 'bob']);
    await members('a', 'room-1', []);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await membership.peersIn('room-1')).toEqual(['alice', 'bob']);
    // A server in service still has the last word on its own rooms.
    await members('b', 'room-1', ['alice']);
    await expect.poll(() => membership.peersIn('room-1')).toEqual(['alice']);
  });
});
