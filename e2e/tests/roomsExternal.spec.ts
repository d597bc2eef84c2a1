/**
 * Group rooms with the media servers run apart (MEDIA_SERVER=external): two media-server
 * processes on the API's Redis, each on its own port, so a room's `/rtc` is another origin than
 * the app's. The page connects with nothing but the app's own Content-Security-Policy (no
 * bypass), hears the room, gives up on a media server that does not answer with "Failed to
 * connect to room" within 10 s, and when the room's media server is killed both pages hear
 * each other again within 5 s, on the other server, without a reload. A media server that
 * started after the page was loaded is not in the page's policy: the browser refuses it, and the
 * page says so at once instead of waiting for the deadline. A media server stopped with SIGTERM
 * drains: its pages move to the other server by themselves, with their mute kept, and nobody is
 * told the room ended. A room across the two servers (MEDIA_MAX_MEMBERS 2): four pages, two on
 * each, all hear each other; one server drained, all four hear everyone again without a reload.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page, TestInfo } from '@playwright/test';
import {
  apiCall,
  connectionCount,
  createPerson,
  expectHearing,
  joinFromList,
  openRooms,
  type Person,
  roomAudio,
  roomView,
  twoInARoom,
} from '@voice/browser-bots';
import { type JoinRoomResponse, ROOM_ROUTES, ROOM_TIMERS } from '@voice/protocol';
import { ApiServer } from '../support/ApiServer.ts';
import { expect, test } from '../support/callBrowser.ts';
import { Mailbox } from '../support/Mailbox.ts';
import { MediaServerProcess } from '../support/MediaServerProcess.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const MEDIA_SECRET = `e2e-media-${randomBytes(16).toString('hex')}`;
/** Below Linux's ephemeral range, apart from the other room tests' 31000-31199. */
const RTC_PORTS = [
  { min: 31200, max: 31299 },
  { min: 31300, max: 31399 },
];
const DRAIN_RTC_PORTS = [
  { min: 31400, max: 31499 },
  { min: 31500, max: 31599 },
];
const ACROSS_RTC_PORTS = [
  { min: 31600, max: 31699 },
  { min: 31700, max: 31799 },
];

/** The connect-src directive of the app page's Content-Security-Policy. */
async function connectSrc(baseURL: string): Promise<string> {
  const csp = (await fetch(`${baseURL}/login`)).headers.get('content-security-policy') ?? '';
  return (
    csp
      .split(';')
      .map((part) => part.trim())
      .find((part) => part.startsWith('connect-src')) ?? ''
  );
}

/**
 * An API with MEDIA_SERVER=external and media servers run apart on its Redis, with an SMTP
 * listener of its own. For describe blocks: start in beforeAll, stop in afterAll.
 */
class ApartStack {
  private constructor(
    readonly api: ApiServer,
    readonly mailbox: Mailbox,
    readonly servers: MediaServerProcess[],
    readonly options: {
      redisPrefix: string;
      log: (name: string) => string;
      mediaEnv: Record<string, string>;
    },
  ) {}

  /** The API and one media server per RTC port range; resolves once the API's CSP names them all. */
  static async start(
    testInfo: TestInfo,
    name: string,
    rtcPorts: Array<{ min: number; max: number }>,
    mediaEnv: Record<string, string> = {},
  ): Promise<ApartStack> {
    const redisPrefix = `voice-e2e-${randomBytes(4).toString('hex')}:`;
    const log = (part: string) => path.join(testInfo.project.outputDir, `${name}-${part}.log`);
    const servers: MediaServerProcess[] = [];
    let mailbox: Mailbox | undefined;
    let api: ApiServer | undefined;
    try {
      mailbox = await Mailbox.start();
      api = await ApiServer.start({
        smtpUrl: mailbox.url,
        logFile: log('api'),
        env: { MEDIA_SERVER: 'external', REDIS_URL, REDIS_PREFIX: redisPrefix, MEDIA_SECRET },
      });
      const stack = new ApartStack(api, mailbox, servers, { redisPrefix, log, mediaEnv });
      for (const ports of rtcPorts) await stack.addServer(ports);
      return stack;
    } catch (error) {
      await Promise.all(servers.map((server) => server.stop()));
      await api?.stop();
      await mailbox?.close();
      throw error;
    }
  }

  /** Starts one more media server; resolves once the API's pages may connect to it. */
  async addServer(rtcPorts: { min: number; max: number }): Promise<MediaServerProcess> {
    const server = await MediaServerProcess.start({
      redisUrl: REDIS_URL,
      redisPrefix: this.options.redisPrefix,
      secret: MEDIA_SECRET,
      rtcPorts,
      logFile: this.options.log(`media-${this.servers.length}`),
      env: this.options.mediaEnv,
    });
    this.servers.push(server);
    await this.expectAllowed(this.servers);
    return server;
  }

  /** Waits until the app's CSP lets pages connect to exactly `servers` besides its own origin. */
  async expectAllowed(servers: MediaServerProcess[]): Promise<void> {
    const origins = [
      new URL(this.api.url).origin.replace('http:', 'ws:'),
      ...servers.map((s) => s.origin).sort(),
    ];
    await expect
      .poll(() => connectSrc(this.api.url), { timeout: 15_000 })
      .toBe(`connect-src 'self' ${origins.join(' ')}`);
  }

  /** The media server the room is placed on now, as a join answers it. */
  async serverOf(roomId: string, person: Person): Promise<MediaServerProcess> {
    const { mediaUrl } = await apiCall<JoinRoomResponse>(this.api.url, ROOM_ROUTES.join(roomId), {
      method: 'POST',
      token: person.token,
      body: {},
    });
    const server = this.servers.find((candidate) => candidate.url === mediaUrl);
    if (!server) throw new Error(`the room is on ${mediaUrl}, none of the test's media servers`);
    return server;
  }

  async stop(): Promise<void> {
    await Promise.all(this.servers.map((server) => server.stop()));
    await this.api.stop();
    await this.mailbox.close();
  }
}

test.describe('rooms on two media servers run apart', () => {
  let stack: ApartStack;
  let api: ApiServer;
  let servers: MediaServerProcess[];

  // biome-ignore lint/correctness/noEmptyPattern: Playwright hooks must destructure their fixtures.
  test.beforeAll(async ({}, testInfo) => {
    test.setTimeout(120_000);
    stack = await ApartStack.start(testInfo, 'rooms-external', RTC_PORTS);
    ({ api, servers } = stack);
  });

  test.afterAll(async () => {
    await stack?.stop();
  });

  const serverOf = (roomId: string, person: Person) => stack.serverOf(roomId, person);

  test("two people hear each other through a media server of its own, under the app's CSP", async ({
    launchCallBrowser,
  }) => {
    const { alice, roomId, a } = await twoInARoom(api.url, launchCallBrowser, 'Apart');
    // The room's /rtc is not the app's origin: the CSP let the page open it.
    expect(servers.map((server) => server.url)).toContain((await serverOf(roomId, alice)).url);
    expect(new URL((await serverOf(roomId, alice)).url).port).not.toBe(new URL(api.url).port);
    await expect(a.page.locator('li.participant')).toHaveCount(2);
  });

  test('a media server that does not answer: the page says "Failed to connect to room" within 10 s', async ({
    launchCallBrowser,
  }) => {
    const alice = await createPerson(api.url, 'Alice');
    const bob = await createPerson(api.url, 'Bob');
    const roomName = `Stalled ${Date.now().toString(36)}`;
    const { room } = await apiCall<{ room: { id: string } }>(api.url, ROOM_ROUTES.rooms, {
      method: 'POST',
      token: alice.token,
      body: { name: roomName, type: 'public' },
    });
    const stalled = await serverOf(room.id, alice);
    const b = await launchCallBrowser({ baseURL: api.url });
    await openRooms(b.page, bob);
    // Stopped, not dead: its port still takes the connection, and nothing ever answers on it.
    stalled.kill('SIGSTOP');
    try {
      // The deadline runs from the moment the page opens the media server's /rtc (before it,
      // the page loads the room's code and asks the API, which a busy machine makes slower).
      const rtcOpened = b.page
        .waitForEvent('websocket', (socket) => socket.url().startsWith(stalled.url))
        .then(() => Date.now());
      await b.page.getByRole('button', { name: `Join ${roomName}` }).click();
      await expect(b.page.getByText('Failed to connect to room')).toBeVisible({
        timeout: ROOM_TIMERS.connectDeadlineMs + 10_000,
      });
      // The 10 s, and a moment for the page to show it.
      expect(Date.now() - (await rtcOpened)).toBeLessThan(ROOM_TIMERS.connectDeadlineMs + 1500);
      await expect(roomView(b.page, roomName)).toBeHidden();
      await expect(b.page.getByRole('button', { name: `Join ${roomName}` })).toBeEnabled();
    } finally {
      stalled.kill('SIGCONT');
    }
  });

  test("a media server that opens and then stops answering for longer than a step's deadline: one more try, and the page is in", async ({
    launchCallBrowser,
  }) => {
    test.setTimeout(90_000);
    const alice = await createPerson(api.url, 'Alice');
    const bob = await createPerson(api.url, 'Bob');
    const roomName = `Slow ${Date.now().toString(36)}`;
    const { room } = await apiCall<{ room: { id: string } }>(api.url, ROOM_ROUTES.rooms, {
      method: 'POST',
      token: alice.token,
      body: { name: roomName, type: 'public' },
    });
    const slow = await serverOf(room.id, alice);
    const b = await launchCallBrowser({ baseURL: api.url });
    await openRooms(b.page, bob);
    // The first request on the first /rtc socket stops the server until past the deadline.
    let stoppedAt = 0;
    let resumed: Promise<void> | null = null;
    b.page.on('websocket', (socket) => {
      if (!socket.url().startsWith(slow.url) || stoppedAt) return;
      socket.once('framesent', () => {
        stoppedAt = Date.now();
        slow.kill('SIGSTOP');
        resumed = new Promise((resolve) =>
          setTimeout(() => {
            slow.kill('SIGCONT');
            resolve();
          }, ROOM_TIMERS.connectDeadlineMs + 1000),
        );
      });
    });
    const warnings: string[] = [];
    b.page.on('console', (message) => {
      if (message.type() === 'warning') warnings.push(message.text());
    });
    try {
      await b.page.getByRole('button', { name: `Join ${roomName}` }).click();
      await expect(roomView(b.page, roomName)).toBeVisible();
      await expect(b.page.locator('section.voice-panel[data-status="connected"]')).toBeVisible({
        timeout: 2 * ROOM_TIMERS.connectDeadlineMs + 15_000,
      });
      expect(stoppedAt).toBeGreaterThan(0);
      expect(warnings.join('\n')).toContain('trying once more');
      await expect(b.page.getByText('Failed to connect to room')).toHaveCount(0);
      await expect(b.page.locator('li.participant')).toHaveCount(1);
    } finally {
      if (!resumed) slow.kill('SIGCONT');
      await resumed;
    }
  });

  test("the room's media server killed with kill -9: both pages hear each other again within 5 s, without a reload", async ({
    launchCallBrowser,
  }) => {
    test.setTimeout(120_000);
    const { alice, bob, a, b, roomId, roomName } = await twoInARoom(api.url, launchCallBrowser, 'Survivor');
    const dead = await serverOf(roomId, alice);
    const pages = [a.page, b.page];
    const reloadMarkers = await Promise.all(pages.map((page) => page.evaluate(() => performance.timeOrigin)));
    const connections = await Promise.all(pages.map(connectionCount));

    dead.kill('SIGKILL');
    // Only audio on connections made after the kill counts: the room rebuilt on the other server.
    await Promise.all([
      expectHearing(a.page, [bob], 5000, connections[0]),
      expectHearing(b.page, [alice], 5000, connections[1]),
    ]);

    const alive = await serverOf(roomId, alice);
    expect(alive).not.toBe(dead);
    for (const page of pages) {
      await expect(roomView(page, roomName).getByRole('status')).toHaveText('2 people in the room');
    }
    expect(await Promise.all(pages.map((page) => page.evaluate(() => performance.timeOrigin)))).toEqual(
      reloadMarkers,
    );
  });
});

test.describe('a media server stopped with SIGTERM (a rolling update)', () => {
  let stack: ApartStack;

  // biome-ignore lint/correctness/noEmptyPattern: Playwright hooks must destructure their fixtures.
  test.beforeAll(async ({}, testInfo) => {
    test.setTimeout(120_000);
    stack = await ApartStack.start(testInfo, 'rooms-drain', DRAIN_RTC_PORTS);
  });

  test.afterAll(async () => {
    await stack?.stop();
  });

  test('drains: the pages move to the other server by themselves, hear each other again, and a muted one stays muted', async ({
    launchCallBrowser,
  }) => {
    test.setTimeout(120_000);
    const { alice, bob, a, b, roomId, roomName } = await twoInARoom(
      stack.api.url,
      launchCallBrowser,
      'Rolling',
    );
    const draining = await stack.serverOf(roomId, alice);
    const pages = [a.page, b.page];
    const reloadMarkers = await Promise.all(pages.map((page) => page.evaluate(() => performance.timeOrigin)));
    await b.page.getByRole('button', { name: 'Mute microphone' }).click();
    await expect(b.page.getByRole('button', { name: 'Unmute microphone' })).toBeVisible();
    const connections = await Promise.all(pages.map(connectionCount));

    const stoppedAt = Date.now();
    draining.kill('SIGTERM');
    // Bob hears Alice on a connection made after the SIGTERM: the room's new place.
    await expectHearing(b.page, [alice], 15_000, connections[1]);
    console.log(`drain: Bob hears Alice again ${Date.now() - stoppedAt} ms after the SIGTERM`);
    // The drained server left by itself once its members had gone.
    expect(await Promise.race([draining.exited(), sleep(10_000).then(() => 'still running')])).toBe(0);
    const next = await stack.serverOf(roomId, alice);
    expect(next).not.toBe(draining);

    // Bob is still muted: his button says so, and Alice receives no voice from him.
    await expect(b.page.getByRole('button', { name: 'Unmute microphone' })).toBeVisible();
    const connectionsNow = await connectionCount(a.page);
    const from = await roomAudio(a.page, connections[0]);
    await sleep(2000);
    const to = await roomAudio(a.page, connections[0]);
    expect((to[bob.id]?.energy ?? 0) - (from[bob.id]?.energy ?? 0)).toBeLessThan(0.001);
    expect(await connectionCount(a.page)).toBe(connectionsNow);
    await b.page.getByRole('button', { name: 'Unmute microphone' }).click();
    await expectHearing(a.page, [bob], 15_000, connections[0]);

    // Nobody was told the room ended, nobody reloaded, both are in the room.
    for (const page of pages) {
      await expect(roomView(page, roomName).getByRole('status')).toHaveText('2 people in the room');
      await expect(page.getByText(/The room was closed|The connection to the room was lost/)).toHaveCount(0);
    }
    expect(await Promise.all(pages.map((page) => page.evaluate(() => performance.timeOrigin)))).toEqual(
      reloadMarkers,
    );
  });
});

test.describe('a room across two media servers', () => {
  let stack: ApartStack;

  // biome-ignore lint/correctness/noEmptyPattern: Playwright hooks must destructure their fixtures.
  test.beforeAll(async ({}, testInfo) => {
    test.setTimeout(120_000);
    // Two members make a media server full: the room's newcomers go on on the other one.
    stack = await ApartStack.start(testInfo, 'rooms-across', ACROSS_RTC_PORTS, { MEDIA_MAX_MEMBERS: '2' });
  });

  test.afterAll(async () => {
    await stack?.stop();
  });

  test('four pages over two media servers all hear each other; SIGTERM on one: every page hears everyone again, without a reload', async ({
    launchCallBrowser,
  }) => {
    // Four talking browsers on two cores, joining twice: in a CI run on a slower machine every
    // step held, and the whole took past 4 min.
    test.setTimeout(420_000);
    const baseURL = stack.api.url;
    // The `/rtc` URLs each page opened, to see which media server it is on.
    const rtc = new Map<Page, string[]>();
    const watch = async ({ page }: { page: Page }) => {
      rtc.set(page, []);
      page.on('websocket', (socket) => {
        if (new URL(socket.url()).pathname === '/rtc') rtc.get(page)?.push(socket.url());
      });
    };
    const serverOfPage = (page: Page) => {
      const url = rtc.get(page)?.at(-1) ?? '';
      return stack.servers.find((server) => url.startsWith(server.url));
    };
    const { alice, bob, a, b, roomId, roomName } = await twoInARoom(baseURL, launchCallBrowser, 'Across', {
      prepare: watch,
    });
    const first = serverOfPage(a.page) as MediaServerProcess;
    const second = stack.servers.find((server) => server !== first) as MediaServerProcess;
    expect(serverOfPage(b.page)).toBe(first);

    // Once the first media server announces itself full, newcomers go to the other one.
    const carol = await createPerson(baseURL, 'Carol');
    const dave = await createPerson(baseURL, 'Dave');
    await expect.poll(() => stack.serverOf(roomId, carol), { timeout: 15_000 }).toBe(second);
    const c = await launchCallBrowser({ speaker: 'carol', baseURL });
    const d = await launchCallBrowser({ speaker: 'dave', baseURL });
    for (const [browser, person] of [
      [c, carol],
      [d, dave],
    ] as const) {
      await watch(browser);
      await openRooms(browser.page, person);
      await joinFromList(browser.page, roomName);
    }
    expect([serverOfPage(c.page), serverOfPage(d.page)]).toEqual([second, second]);

    // Everyone hears the three others, whichever media server they are on, and sees four people.
    const people = [alice, bob, carol, dave];
    const pages = [a.page, b.page, c.page, d.page];
    const others = (index: number) => people.filter((_, at) => at !== index);
    // The last to join may still be starting its voice (a CI run on a slow day: Dave, the
    // fourth browser, still muted to the others after 20 s; four browsers and two media
    // servers on two cores).
    for (const [index, page] of pages.entries()) await expectHearing(page, others(index), 45_000);
    for (const page of pages) {
      await expect(roomView(page, roomName).getByRole('status')).toHaveText('4 people in the room');
    }
    const reloadMarkers = await Promise.all(pages.map((page) => page.evaluate(() => performance.timeOrigin)));
    const connections = await Promise.all(pages.map(connectionCount));

    // A rolling update stops the first media server: Alice and Bob move to the second by
    // themselves; everyone hears everyone again.
    const stoppedAt = Date.now();
    first.kill('SIGTERM');
    // Those who moved count only their new connections; the others keep theirs.
    const since = [connections[0], connections[1], 0, 0];
    await Promise.all(
      pages.map(async (page, index) => {
        // Alice and Bob join again (Bob, in a CI run on a slower machine, after 17.5 s; Dave heard
        // everyone after 25.8 s); Carol and Dave hear them once they are back.
        await expectHearing(page, others(index), 40_000, since[index]);
        console.log(
          `across: ${people[index]?.displayName} hears the three others ${Date.now() - stoppedAt} ms after the SIGTERM`,
        );
      }),
    );
    expect(await Promise.race([first.exited(), sleep(10_000).then(() => 'still running')])).toBe(0);
    expect(pages.map(serverOfPage)).toEqual([second, second, second, second]);

    // Nobody was told the room ended, nobody reloaded, all four are in the room.
    for (const page of pages) {
      await expect(roomView(page, roomName).getByRole('status')).toHaveText('4 people in the room');
      await expect(page.getByText(/The room was closed|The connection to the room was lost/)).toHaveCount(0);
    }
    expect(await Promise.all(pages.map((page) => page.evaluate(() => performance.timeOrigin)))).toEqual(
      reloadMarkers,
    );
  });
});

test.describe('a media server that started after the page was loaded', () => {
  let stack: ApartStack;

  // biome-ignore lint/correctness/noEmptyPattern: Playwright hooks must destructure their fixtures.
  test.beforeAll(async ({}, testInfo) => {
    test.setTimeout(120_000);
    stack = await ApartStack.start(testInfo, 'rooms-external-late', [
      RTC_PORTS[0] as { min: number; max: number },
    ]);
  });

  test.afterAll(async () => {
    await stack?.stop();
  });

  test('is not in the policy the page was loaded with: "Failed to connect to room" at once; after a reload the page joins', async ({
    launchCallBrowser,
  }) => {
    const { api } = stack;
    const alice = await createPerson(api.url, 'Alice');
    const roomName = `Late ${Date.now().toString(36)}`;
    await apiCall(api.url, ROOM_ROUTES.rooms, {
      method: 'POST',
      token: alice.token,
      body: { name: roomName, type: 'public' },
    });
    const a = await launchCallBrowser({ baseURL: api.url });
    await openRooms(a.page, alice);
    // The first server leaves (a goodbye), a new one takes over: the page's policy does not name it.
    const [first] = stack.servers.splice(0, 1) as [MediaServerProcess];
    await first.stop();
    const late = await stack.addServer(RTC_PORTS[1] as { min: number; max: number });
    expect(await stack.serverOf(await roomIdOf(api.url, alice, roomName), alice)).toBe(late);

    await a.page.getByRole('button', { name: `Join ${roomName}` }).click();
    // Refused by the browser itself, so without waiting for the deadline.
    await expect(a.page.getByText('Failed to connect to room')).toBeVisible({
      timeout: ROOM_TIMERS.connectDeadlineMs / 2,
    });
    // The room's screen was open: reloaded, it joins by itself, now under a policy naming the new server.
    await expect(a.page).toHaveURL(/\/rooms\/[^/]+$/);
    await a.page.reload();
    await expect(roomView(a.page, roomName).getByRole('status')).toHaveText('1 person in the room');
  });
});

/** The id of the room `name` in `person`'s list. */
async function roomIdOf(baseURL: string, person: Person, name: string): Promise<string> {
  const { rooms } = await apiCall<{ rooms: Array<{ id: string; name: string }> }>(
    baseURL,
    ROOM_ROUTES.rooms,
    {
      token: person.token,
    },
  );
  const room = rooms.find((candidate) => candidate.name === name);
  if (!room) throw new Error(`no room ${name}`);
  return room.id;
}
