/**
 * A media server drains before it stops (issue 22, item 2): it says so on the bus, lets nobody
 * new in, asks every member to join again (`reconnect`, never `roomClosed`) and resolves once
 * they left, or at its deadline with the stragglers disconnected by the same notice.
 */
import { mediaAnnounceChannel } from '@voice/bus';
import type { MediaServerAnnouncement } from '@voice/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { join, TestMediaServer } from './testing/TestMediaServer.ts';
import { handshakeStatus } from './testing/TestMember.ts';

let running: TestMediaServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe('MediaServer.drain()', () => {
  it('announces draining before asking anyone to move, refuses newcomers, and ends when the members left', async () => {
    running = await TestMediaServer.start({ rtcPorts: { min: 47100, max: 47149 } });
    const server = running;
    const heard: MediaServerAnnouncement[] = [];
    await server.bus.subscribe(mediaAnnounceChannel, (announcement) => {
      heard.push(announcement);
    });
    const alice = await server.connect('room-1', 'alice');
    const bob = await server.connect('room-1', 'bob');
    const carol = await server.connect('room-2', 'carol');
    for (const member of [alice, bob, carol]) await join(member);

    // When each member was asked to move, the draining announcement was already out.
    const announcedBeforeMove: boolean[] = [];
    for (const member of [alice, bob, carol]) {
      member.peer.on('notification', ({ method }: { method: string }) => {
        if (method === 'reconnect') announcedBeforeMove.push(heard.some((a) => a.draining === true));
      });
    }

    let drained = false;
    const draining = server.media.drain(10_000).then(() => {
      drained = true;
    });
    for (const member of [alice, bob, carol]) await member.notification('reconnect');
    expect(announcedBeforeMove).toEqual([true, true, true]);
    expect(server.media.draining).toBe(true);
    const announcement = heard.find((a) => a.draining === true);
    expect(announcement).toMatchObject({ id: server.media.id, draining: true });
    expect(announcement?.gone).toBeUndefined();
    // Nobody was told their room ended.
    for (const member of [alice, bob, carol]) expect(member.received('roomClosed')).toEqual([]);

    // Newcomers, to a room here or a new one, are refused with a reason to ask again.
    expect(await handshakeStatus(server.url('room-1', 'dave'))).toBe(503);
    expect(await handshakeStatus(server.url('room-9', 'erin'))).toBe(503);
    expect(server.media.rooms.get('room-9')).toBeUndefined();

    // It waits for the members to go; they do, as pages do when asked.
    alice.close();
    bob.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(drained).toBe(false);
    carol.close();
    await draining;
    expect(server.media.rooms.size).toBe(0);
    // Closing afterwards says goodbye.
    await server.media.close();
    await expect.poll(() => heard.some((a) => a.gone === true)).toBe(true);
  });

  it('disconnects whoever is still here at its deadline with the same notice', async () => {
    running = await TestMediaServer.start({ rtcPorts: { min: 47150, max: 47199 } });
    const server = running;
    const stubborn = await server.connect('room-1', 'stubborn');
    await join(stubborn);
    const started = Date.now();
    await server.media.drain(300);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    await stubborn.untilClosed();
    // Asked once when the drain began, and again with the disconnection; never roomClosed.
    expect(stubborn.received('reconnect').length).toBe(2);
    expect(stubborn.received('roomClosed')).toEqual([]);
    expect(server.media.rooms.size).toBe(0);
    // A second drain, or one after close, does nothing.
    await server.media.drain(300);
  });

  it('closed without a drain (SIGINT, an API with its media server embedded restarting), it still ends no room', async () => {
    running = await TestMediaServer.start({ rtcPorts: { min: 47100, max: 47149 } });
    const member = await running.connect('room-1', 'alice');
    await join(member);
    await running.media.close();
    await member.untilClosed();
    expect(member.received('reconnect').length).toBe(1);
    expect(member.received('roomClosed')).toEqual([]);
  });
});
