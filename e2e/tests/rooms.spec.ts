/**
 * Group rooms through the real media server (the API's embedded mediasoup workers), one
 * Chromium per person, each fed its own speech recording: everyone hears everyone else
 * (per-member `inbound-rtp` bytes growing and decoded energy above zero), sees who speaks,
 * a muted member sends nothing and is heard again once unmuted, the admin removes someone;
 * passwords, a full room, an invitation, and audio coming back by itself after the room's
 * mediasoup worker is killed.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { Page } from '@playwright/test';
import {
  apiCall,
  audioPacketsSent,
  befriend,
  type CallBrowser,
  createPerson,
  expectHearing,
  joinFromList,
  openDashboardAs,
  openRooms,
  PEER_CONNECTIONS,
  type Person,
  roomAudio,
  roomCiphers,
  roomView,
  type Speaker,
  selectedPaths,
  twoInARoom,
} from '@voice/browser-bots';
import { ROOM_ROUTES } from '@voice/protocol';
import { ApiServer } from '../support/ApiServer.ts';
import { expect, test } from '../support/callBrowser.ts';
import { RelayStack } from '../support/RelayStack.ts';

const participant = (page: Page, name: string) => page.locator('li.participant').filter({ hasText: name });

test.describe('group rooms', () => {
  test('four people hear each other, see who speaks; a muted one goes silent; the admin removes one', async ({
    baseURL,
    launchCallBrowser,
  }) => {
    if (!baseURL) throw new Error('no baseURL');
    // Four browsers, each sending and receiving three streams, on a two-core machine.
    test.setTimeout(360_000);
    const speakers: Speaker[] = ['alice', 'bob', 'carol', 'dave'];
    const people = await Promise.all(
      ['Alice', 'Bob', 'Carol', 'Dave'].map((name) => createPerson(baseURL, name)),
    );
    const browsers: CallBrowser[] = [];
    for (const speaker of speakers) browsers.push(await launchCallBrowser({ speaker, baseURL }));
    const pages = browsers.map((browser) => browser.page);
    const [alice, bob, carol, dave] = people as [Person, Person, Person, Person];
    const [pa, pb, pc, pd] = pages as [Page, Page, Page, Page];
    const roomName = `Friday chat ${Date.now().toString(36)}`;

    // Alice creates the room with the form and is in it as its admin.
    await openRooms(pa, alice);
    await pa.getByRole('button', { name: 'Create room' }).click();
    await pa.getByLabel('Name', { exact: true }).fill(roomName);
    await pa.getByRole('button', { name: 'Create and join' }).click();
    await expect(roomView(pa, roomName)).toBeVisible();
    await expect(participant(pa, 'Alice')).toContainText('Admin');

    for (const [page, person] of [
      [pb, bob],
      [pc, carol],
      [pd, dave],
    ] as const) {
      await openRooms(page, person);
      await joinFromList(page, roomName);
    }
    // The first pages learn of the last joins in the media server's batched membership news.
    for (const page of pages)
      await expect(page.locator('li.participant')).toHaveCount(4, { timeout: 30_000 });

    // Everyone hears the three others, and sees a speaking ring.
    for (const [index, page] of pages.entries()) {
      await expectHearing(
        page,
        people.filter((_, other) => other !== index),
      );
      await expect(page.locator('li.participant[data-speaking="true"]').first()).toBeVisible();
    }
    // The browser and the media server agree AES-GCM SRTP on both transports: the cipher
    // bench:large-room's bots agree too, so that it measures what the worker spends on browsers.
    expect(await roomCiphers(pa)).toEqual(['SRTP_AEAD_AES_256_GCM', 'SRTP_AEAD_AES_256_GCM']);

    // Bob mutes with the M key: the others see it and stop receiving his voice.
    await pb.locator('body').press('m');
    await expect(pb.getByRole('button', { name: 'Unmute microphone' })).toHaveAttribute(
      'aria-pressed',
      'true',
    );
    await expect(participant(pa, 'Bob')).toHaveAttribute('data-muted', 'true');
    await pa.waitForTimeout(1000);
    const from = (await roomAudio(pa))[bob.id];
    const sentFrom = await audioPacketsSent(pb);
    await pa.waitForTimeout(3000);
    const to = (await roomAudio(pa))[bob.id];
    expect((to?.energy ?? 0) - (from?.energy ?? 0)).toBeLessThan(0.001);
    // Muted sends nothing at all, not even Opus DTX's silence frames.
    expect(await audioPacketsSent(pb)).toBe(sentFrom);
    await expectHearing(pa, [carol, dave]);
    // Unmuted, he is heard again at once (no renegotiation with the server).
    await pb.locator('body').press('m');
    await expect(participant(pa, 'Bob')).toHaveAttribute('data-muted', 'false');
    await expectHearing(pa, [bob]);

    // Alice removes Dave (asked first), who is told and back at the list of rooms.
    await pa.getByRole('button', { name: 'Remove Dave from the room' }).click();
    await pa
      .getByRole('dialog', { name: 'Remove Dave from the room?' })
      .getByRole('button', { name: 'Remove' })
      .click();
    await expect(pd.getByText('You were removed from the room.')).toBeVisible();
    await expect(roomView(pd, roomName)).toBeHidden();
    await expect(pa.locator('li.participant')).toHaveCount(3);
  });

  test('a password room refuses a wrong password; a full room says "Room is full"; the admin renames and locks it', async ({
    baseURL,
    launchCallBrowser,
  }) => {
    if (!baseURL) throw new Error('no baseURL');
    const [alice, bob, carol] = await Promise.all(
      ['Alice', 'Bob', 'Carol'].map((name) => createPerson(baseURL, name)),
    );
    const roomName = `Two only ${Date.now().toString(36)}`;
    const { room: created } = await apiCall<{ room: { id: string } }>(baseURL, ROOM_ROUTES.rooms, {
      method: 'POST',
      token: (alice as Person).token,
      body: { name: roomName, type: 'public', password: 'sesame', maxParticipants: 2 },
    });
    const roomId = created.id;
    const [a, b, c] = [
      await launchCallBrowser({ baseURL }),
      await launchCallBrowser({ baseURL }),
      await launchCallBrowser({ baseURL }),
    ];
    await openRooms(a.page, alice as Person);
    await joinFromList(a.page, roomName); // the admin needs no password

    await openRooms(b.page, bob as Person);
    await b.page.getByRole('button', { name: `Join ${roomName}` }).click();
    const prompt = b.page.getByRole('dialog', { name: `Password for ${roomName}` });
    await prompt.getByLabel('Room password').fill('open sesame');
    await prompt.getByRole('button', { name: 'Join' }).click();
    await expect(prompt).toContainText('Wrong room password');
    await prompt.getByLabel('Room password').fill('sesame');
    await prompt.getByRole('button', { name: 'Join' }).click();
    await expect(roomView(b.page, roomName)).toBeVisible();
    await expect(b.page.locator('li.participant')).toHaveCount(2);

    // Full: Carol's Join is disabled with the reason beside it, before any password prompt.
    await openRooms(c.page, carol as Person);
    const carolJoin = c.page.getByRole('button', { name: `Join ${roomName}` });
    await expect(carolJoin).toBeDisabled();
    await expect(carolJoin).toHaveAccessibleDescription('Room is full');
    await expect(c.page.getByRole('dialog')).toHaveCount(0);
    // The API refuses it all the same, whatever a page shows.
    const refused = await c.page.request.post(`/api${ROOM_ROUTES.join(roomId)}`, {
      headers: { Authorization: `Bearer ${(carol as Person).token}` },
      data: { password: 'sesame' },
    });
    expect(refused.status()).toBe(409);
    expect((await refused.json()).error.code).toBe('ROOM_FULL');

    // The admin renames the room, has each member hear 5 voices at once (3 until now), and
    // locks it; the change shows at once.
    const renamed = `${roomName} renamed`;
    await roomView(a.page, roomName).getByRole('button', { name: 'Room settings' }).click();
    const settings = a.page.getByRole('dialog', { name: 'Room settings' });
    await settings.getByLabel('Name', { exact: true }).fill(renamed);
    const loudest = settings.getByLabel('Voices heard at once');
    await expect(loudest).toHaveValue('3');
    await expect(loudest).toHaveAccessibleDescription(
      'Only the loudest speakers are sent to each member; keeps large rooms light.',
    );
    await loudest.selectOption('5');
    await settings.getByRole('button', { name: 'Save' }).click();
    await expect(settings).toBeHidden();
    await expect(roomView(a.page, renamed).getByRole('heading', { name: renamed })).toBeVisible();
    const { room: saved } = await apiCall<{ room: { loudest: number } }>(baseURL, ROOM_ROUTES.room(roomId), {
      token: (alice as Person).token,
    });
    expect(saved.loudest).toBe(5);
    await roomView(a.page, renamed).getByRole('button', { name: 'Room settings' }).click();
    await expect(settings.getByLabel('Voices heard at once')).toHaveValue('5');
    await settings.getByRole('button', { name: 'Cancel' }).click();
    await expect(settings).toBeHidden();
    await roomView(a.page, renamed).getByRole('button', { name: 'Lock room' }).click();
    await expect(roomView(a.page, renamed).getByRole('button', { name: 'Unlock room' })).toBeVisible();
  });

  test('a friend invites another, who joins from the dashboard and hears the room; its deletion reaches him on another tab', async ({
    baseURL,
    launchCallBrowser,
  }) => {
    if (!baseURL) throw new Error('no baseURL');
    const alice = await createPerson(baseURL, 'Alice');
    const bob = await createPerson(baseURL, 'Bob');
    await befriend(baseURL, alice, bob);
    const roomName = `Private ${Date.now().toString(36)}`;
    const {
      room: { id: roomId },
    } = (await apiCall(baseURL, ROOM_ROUTES.rooms, {
      method: 'POST',
      token: alice.token,
      body: { name: roomName, type: 'private' },
    })) as { room: { id: string } };
    const a = await launchCallBrowser({ speaker: 'alice', baseURL });
    const b = await launchCallBrowser({ speaker: 'bob', baseURL });
    await openRooms(a.page, alice);
    await joinFromList(a.page, roomName);
    await openDashboardAs(b.page, bob);
    // Bob cannot see the private room before he is invited.
    await b.page.getByRole('tab', { name: 'Rooms' }).click();
    await expect(b.page.getByRole('button', { name: `Join ${roomName}` })).toHaveCount(0);
    await b.page.getByRole('tab', { name: 'All', exact: true }).click();

    await a.page.getByRole('button', { name: 'Invite friends' }).click();
    const dialog = a.page.getByRole('dialog', { name: 'Invite friends' });
    await dialog.getByRole('button', { name: 'Send invitations' }).click();
    await expect(dialog).toContainText('Please select at least one friend to invite');
    // Searchable, with who is online; sending closes it and says so in the room.
    await expect(dialog.locator('label', { hasText: 'Bob' })).toContainText('Online');
    await dialog.getByRole('searchbox', { name: 'Search friends' }).fill('zz-nobody');
    await expect(dialog).toContainText('No friend matches');
    await dialog.getByRole('searchbox', { name: 'Search friends' }).fill('bo');
    await dialog.getByRole('checkbox', { name: 'Bob' }).check();
    await dialog.getByRole('button', { name: 'Send invitations' }).click();
    await expect(dialog).toBeHidden();
    await expect(a.page.getByText('Invitations sent.')).toBeVisible();

    const invitations = b.page.getByRole('list', { name: 'Room invitations' });
    await expect(invitations).toContainText(roomName);
    await expect(invitations).toContainText('From Alice');
    await invitations.getByRole('button', { name: `Join ${roomName}` }).click();
    // Accepted from the All tab: the room's screen opens.
    await expect(roomView(b.page, roomName)).toBeVisible();
    await expectHearing(b.page, [alice]);
    await expectHearing(a.page, [bob]);
    // Bob in the room: the invite dialog says so, and he cannot be picked.
    await a.page.getByRole('button', { name: 'Invite friends' }).click();
    await expect(dialog.locator('label', { hasText: 'Bob' })).toContainText('In the room');
    await expect(dialog.getByRole('checkbox', { name: 'Bob' })).toBeDisabled();
    await dialog.getByRole('button', { name: 'Dismiss' }).click();

    // Alice deletes the room while Bob looks at another tab of the dashboard, where the voice
    // panel showed the room: his bar says so until dismissed.
    await b.page.getByRole('link', { name: 'Back to the dashboard' }).click();
    await b.page.getByRole('tab', { name: 'Calls' }).click();
    const bar = b.page.getByRole('status', { name: 'Your room' });
    const voicePanel = b.page.getByRole('region', { name: 'Voice' });
    await expect(voicePanel).toContainText(roomName);
    await apiCall(baseURL, ROOM_ROUTES.room(roomId), { method: 'DELETE', token: alice.token });
    await expect(bar).toContainText('The room was closed.');
    await expect(voicePanel).toHaveCount(0);
    await bar.getByRole('button', { name: 'Dismiss' }).click();
    await expect(bar).toBeHidden();
    await b.page.getByRole('tab', { name: 'Rooms' }).click();
    await expect(b.page.getByText('The room was closed.')).toHaveCount(0);
  });

  test('an invitation leaves the dashboard when its room is deleted', async ({ baseURL, page }) => {
    if (!baseURL) throw new Error('no baseURL');
    const alice = await createPerson(baseURL, 'Alice');
    const bob = await createPerson(baseURL, 'Bob');
    await befriend(baseURL, alice, bob);
    const roomName = `Brief ${Date.now().toString(36)}`;
    const { room } = (await apiCall(baseURL, ROOM_ROUTES.rooms, {
      method: 'POST',
      token: alice.token,
      body: { name: roomName, type: 'private' },
    })) as { room: { id: string } };
    await openDashboardAs(page, bob);
    await apiCall(baseURL, ROOM_ROUTES.invite(room.id), {
      method: 'POST',
      token: alice.token,
      body: { userIds: [bob.id] },
    });
    const invitations = page.getByRole('list', { name: 'Room invitations' });
    await expect(invitations).toContainText(roomName);
    await apiCall(baseURL, ROOM_ROUTES.room(room.id), { method: 'DELETE', token: alice.token });
    await expect(invitations).toHaveCount(0);
  });

  test("killing the room's mediasoup worker: audio comes back in every page without a reload", async ({
    baseURL,
    launchCallBrowser,
    stack,
  }) => {
    if (!baseURL) throw new Error('no baseURL');
    const { alice, bob, a, b } = await twoInARoom(baseURL, launchCallBrowser, 'Sturdy');

    // The embedded media server's workers are the API process's children.
    const workers = execFileSync('pgrep', ['-P', String(stack.api.pid), '-f', 'mediasoup-worker'], {
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .filter(Boolean);
    expect(workers.length).toBeGreaterThan(0);
    for (const pid of workers) process.kill(Number(pid), 'SIGKILL');

    // Both pages rejoin by themselves and hear each other again; no reload happened.
    const markers = await Promise.all(
      [a.page, b.page].map((page) => page.evaluate(() => performance.timeOrigin)),
    );
    await expectHearing(a.page, [bob], 15_000);
    await expectHearing(b.page, [alice], 15_000);
    expect(
      await Promise.all([a.page, b.page].map((page) => page.evaluate(() => performance.timeOrigin))),
    ).toEqual(markers);
    await expect(a.page.locator('li.participant')).toHaveCount(2);
  });
});

/**
 * The RTC ports of the API this suite starts: below Linux's ephemeral range (32768-60999), so
 * no other connection on the machine (a browser's WebSocket to the API, say) uses one of them.
 */
const RTC_PORTS = { min: 31000, max: 31199 };

/**
 * Drops every packet to and from the media server's RTC ports on loopback while it is in place
 * (iptables): UDP and TCP, since ICE would otherwise move to the TCP candidates and carry on.
 */
class Blackout {
  static readonly #rules = ['udp', 'tcp'].flatMap((protocol) =>
    ['--dport', '--sport'].map((port) => [
      'INPUT',
      '-i',
      'lo',
      '-p',
      protocol,
      port,
      `${RTC_PORTS.min}:${RTC_PORTS.max}`,
      '-m',
      'comment',
      '--comment',
      'voice-e2e',
      '-j',
      'DROP',
    ]),
  );
  #on = false;

  start(): void {
    for (const rule of Blackout.#rules) execFileSync('iptables', ['-I', ...rule]);
    this.#on = true;
  }

  stop(): void {
    if (!this.#on) return;
    this.#on = false;
    for (const rule of Blackout.#rules) execFileSync('iptables', ['-D', ...rule]);
  }
}

/** The states of the page's RTCPeerConnections, oldest first (one per transport it ever made). */
function connectionStates(page: Page): Promise<RTCPeerConnectionState[]> {
  return page.evaluate(
    (key) =>
      ((window as unknown as Record<string, RTCPeerConnection[]>)[key] ?? []).map((pc) => pc.connectionState),
    PEER_CONNECTIONS,
  );
}

test.describe('a room whose network drops', () => {
  let api: ApiServer;

  test.beforeAll(async ({ stack }, testInfo) => {
    api = await ApiServer.start({
      smtpUrl: stack.mailbox.url,
      logFile: path.join(testInfo.project.outputDir, 'api-rooms-blackout.log'),
      env: { RTC_MIN_PORT: String(RTC_PORTS.min), RTC_MAX_PORT: String(RTC_PORTS.max) },
    });
  });

  test.afterAll(async () => {
    await api?.stop();
  });

  test('a short drop: ICE restarts on the same connections; a long one: the page joins again; audio comes back', async ({
    launchCallBrowser,
  }) => {
    test.setTimeout(150_000);
    const { alice, bob, a, b, roomName } = await twoInARoom(api.url, launchCallBrowser, 'Patchy');
    const made = (await connectionStates(a.page)).length;
    const reloadMarker = await a.page.evaluate(() => performance.timeOrigin);
    const status = roomView(a.page, roomName).getByRole('status');

    const blackout = new Blackout();
    try {
      // Short: the transports notice, restart ICE, and come back on the same connections.
      blackout.start();
      await expect
        .poll(async () => (await connectionStates(a.page)).slice(-2), { timeout: 20_000 })
        .toContain('disconnected');
      blackout.stop();
      await expectHearing(a.page, [bob]);
      await expectHearing(b.page, [alice]);
      expect(await connectionStates(a.page)).toHaveLength(made);
      await expect(status).toHaveText('2 people in the room');

      // Long: past the transports' deadline the pages join again, and hear each other once it is over.
      blackout.start();
      await expect(status).toHaveText('Connection lost. Reconnecting…', { timeout: 30_000 });
      blackout.stop();
      await expectHearing(a.page, [bob], 30_000);
      await expectHearing(b.page, [alice], 30_000);
      expect((await connectionStates(a.page)).length).toBeGreaterThan(made);
      await expect(status).toHaveText('2 people in the room');
      expect(await a.page.evaluate(() => performance.timeOrigin)).toBe(reloadMarker);
    } finally {
      blackout.stop();
    }
  });
});

test.describe('a room for browsers that can only relay', () => {
  let relay: RelayStack;
  let api: ApiServer;

  // biome-ignore lint/correctness/noEmptyPattern: Playwright hooks must destructure their fixtures.
  test.beforeAll(async ({}, testInfo) => {
    relay = await RelayStack.start(testInfo, 'rooms-relay');
    api = relay.api;
  });

  test.afterAll(async () => {
    await relay?.stop();
  });

  test('joins through the TURN relay, and both voices come through the SFU', async ({
    launchCallBrowser,
  }) => {
    const alice = await createPerson(api.url, 'Alice');
    const bob = await createPerson(api.url, 'Bob');
    const roomName = `Relayed ${Date.now().toString(36)}`;
    await apiCall(api.url, ROOM_ROUTES.rooms, {
      method: 'POST',
      token: alice.token,
      body: { name: roomName, type: 'public' },
    });
    const a = await launchCallBrowser({ speaker: 'alice', baseURL: api.url });
    const b = await launchCallBrowser({ speaker: 'bob', baseURL: api.url });
    await openRooms(a.page, alice);
    await joinFromList(a.page, roomName);
    await openRooms(b.page, bob);
    await joinFromList(b.page, roomName);
    await expectHearing(a.page, [bob]);
    await expectHearing(b.page, [alice]);
    // Every transport of both pages goes through the relay.
    for (const page of [a.page, b.page]) {
      const localTypes = (await selectedPaths(page)).map((path) => path.local);
      expect(localTypes).toEqual(['relay', 'relay']);
    }
  });
});
