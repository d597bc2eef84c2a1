/**
 * deploy/swarm/stack.yml run for real on a one-node swarm (swarm/globalSetup.ts deploys it):
 * two people in one room sit on the two media servers (MEDIA_MAX_MEMBERS=1) and hear each other
 * through coturn; a rolling update of each media server in turn (`docker service update
 * --force`) moves them without a reload or "the room was closed", audio back each time; the API
 * scaled to three replicas and back, then rolled: the app socket reconnects by itself and live
 * events still arrive. The steps share one stack, so they run in order and stop at the first
 * failure. How long audio took to come back is logged and written to rolling.json beside the
 * results (timing is a benchmark's business: bench:rolling).
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, type Page, test } from '@playwright/test';
import {
  apiCall,
  CallBrowser,
  connectionCount,
  createPerson,
  expectHearing,
  joinFromList,
  openRooms,
  type Person,
  roomAudio,
  roomView,
  selectedPaths,
} from '@voice/browser-bots';
import { APP_SOCKET_PATH, type JoinRoomResponse, ROOM_ROUTES } from '@voice/protocol';
import { DOCKER } from '../compose/ComposeProject.ts';
import {
  docker,
  loadState,
  runningTasks,
  SECRET_NAMES,
  type ServiceName,
  serviceName,
  waitConverged,
} from './SwarmStack.ts';

const run = promisify(execFile);
const state = loadState();
const base = state.baseUrl;
const RESULTS = path.resolve(import.meta.dirname, '../test-results/swarm/rolling.json');

test.describe.configure({ mode: 'serial' });

/** One person's page in the room, and the sockets it opened. */
interface Member {
  person: Person;
  browser: CallBrowser;
  /** The /rtc URLs of the page's sockets open now, oldest first: the last names its media server. */
  openRtc: string[];
  /** How many app sockets (/ws) the page opened. */
  appSockets: number;
}

let alice: Member;
let bob: Member;
let roomName: string;
/** Set once both pages are in the room: their time origins, to prove nobody reloaded. */
let origins: number[];
const timings: {
  step: string;
  person: string;
  moved: boolean;
  afterCommandMs: number;
  afterSigtermMs: number;
}[] = [];

async function member(name: string, speaker: 'alice' | 'bob'): Promise<Member> {
  const person = await createPerson(base, name);
  const browser = await CallBrowser.launch({ speaker, baseURL: base, args: ['--ignore-certificate-errors'] });
  const entry: Member = { person, browser, openRtc: [], appSockets: 0 };
  browser.page.on('websocket', (socket) => {
    const { pathname } = new URL(socket.url());
    if (pathname === '/rtc') {
      const url = socket.url().split('?')[0] as string;
      entry.openRtc.push(url);
      // A try the media server refused, or a connection it closed, names no server the page is on.
      socket.on('close', () => {
        const at = entry.openRtc.lastIndexOf(url);
        if (at >= 0) entry.openRtc.splice(at, 1);
      });
    }
    if (pathname === APP_SOCKET_PATH) entry.appSockets += 1;
  });
  return entry;
}

/** The media server the member's page is on now (its newest open /rtc socket's). */
function mediaServerOf(entry: Member): 'media-a' | 'media-b' | undefined {
  const url = entry.openRtc.at(-1);
  if (url === state.media['media-a'].url) return 'media-a';
  if (url === state.media['media-b'].url) return 'media-b';
  return undefined;
}

/** Nobody was told the room ended, nobody reloaded, both are in it. */
async function expectStillTogether(): Promise<void> {
  const pages = [alice.browser.page, bob.browser.page];
  for (const page of pages) {
    await expect(roomView(page, roomName).getByRole('status')).toHaveText('2 people in the room');
    await expect(page.getByText(/The room was closed|The connection to the room was lost/)).toHaveCount(0);
  }
  expect(await Promise.all(pages.map((page) => page.evaluate(() => performance.timeOrigin)))).toEqual(
    origins,
  );
}

/** The containers of a service now, to see when an update has replaced them. */
async function containersOf(service: ServiceName): Promise<string[]> {
  return (await runningTasks(service)).map((task) => task.container);
}

/** When the media server in `container` says its SIGTERM came (Docker's timestamp of that log line). */
async function sigtermAt(container: string): Promise<number> {
  let line: string | undefined;
  await expect
    .poll(
      async () => {
        const { stdout, stderr } = await run(DOCKER, ['logs', '--timestamps', container]);
        line = `${stdout}${stderr}`.split('\n').find((entry) => entry.includes('SIGTERM received'));
        return line !== undefined;
      },
      { timeout: 10_000 },
    )
    .toBe(true);
  return Date.parse((line as string).split(' ')[0] as string);
}

/**
 * Waits until none of `before` runs any more and the service runs `replicas` healthy new ones.
 * Start-first, one replica at a time: each new API must pass its health check before the old
 * one stops, which on a slow day (a CI run: one of two old replicas still up after 120 s) takes
 * a while. A failure says where the update stood.
 */
async function waitReplaced(service: ServiceName, before: string[], replicas: number): Promise<void> {
  try {
    await expect
      .poll(async () => (await containersOf(service)).filter((id) => before.includes(id)).length, {
        timeout: 240_000,
        intervals: [1000],
      })
      .toBe(0);
  } catch (error) {
    const update = await docker([
      'service',
      'inspect',
      '--format',
      '{{json .UpdateStatus}}',
      serviceName(service),
    ]);
    const tasks = await docker(['service', 'ps', '--no-trunc', serviceName(service)]);
    throw new Error(`${service} was not replaced: update ${update.trim()}\n${tasks}`, { cause: error });
  }
  await waitConverged({ [service]: replicas });
}

/** What Redis on 127.0.0.1:`port` answers an unauthenticated PING. */
function redisPing(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => socket.write('PING\r\n'));
    socket.setEncoding('utf8');
    socket.setTimeout(5000, () => socket.destroy(new Error('Redis did not answer')));
    socket.once('data', (reply: string) => {
      socket.end();
      resolve(reply);
    });
    socket.once('error', reject);
  });
}

// The pages are the test's own (one browser each): on a failure, what each showed.
// biome-ignore lint/correctness/noEmptyPattern: Playwright hooks must destructure their fixtures.
test.afterEach(async ({}, testInfo) => {
  if (testInfo.status === testInfo.expectedStatus) return;
  for (const entry of [alice, bob]) {
    if (!entry) continue;
    await entry.browser.page
      .screenshot({ path: testInfo.outputPath(`${entry.person.displayName}.png`), fullPage: true })
      .catch(() => null);
  }
});

test.afterAll(async () => {
  await writeFile(RESULTS, `${JSON.stringify(timings, null, 2)}\n`).catch(() => {});
  await Promise.all([alice?.browser.close(), bob?.browser.close()]);
});

test('the stack as deployed: every replica healthy, secrets as files only, readiness through Caddy', async () => {
  // No secret in any service's environment: each process reads its own from /run/secrets.
  for (const service of ['api', 'media-a', 'media-b', 'coturn', 'postgres', 'redis'] as const) {
    const spec = JSON.parse(
      await docker([
        'service',
        'inspect',
        '--format',
        '{{json .Spec.TaskTemplate.ContainerSpec}}',
        serviceName(service),
      ]),
    ) as { Env?: string[]; Secrets?: { File: { Name: string } }[] };
    const env = spec.Env ?? [];
    expect(
      env.filter((entry) => /(SECRET|PASSWORD)=/.test(entry)),
      service,
    ).toEqual([]);
    expect(spec.Secrets?.length ?? 0, service).toBeGreaterThan(0);
  }
  const secrets = (await docker(['secret', 'ls', '--format', '{{.Name}}'])).split('\n');
  for (const name of SECRET_NAMES) expect(secrets.some((secret) => secret.endsWith(name))).toBe(true);

  const ready = await fetch(`${base}/api/health/ready`);
  expect(ready.status).toBe(200);
  for (const { port } of Object.values(state.media)) {
    expect((await fetch(`http://127.0.0.1:${port}/health/ready`)).status).toBe(200);
  }
  // Redis, published on the node for the media servers, wants its password.
  expect(await redisPing(Number(state.deployEnv.REDIS_PUBLISHED_PORT))).toMatch(/^-NOAUTH/);
});

test('a room across both media servers: each hears the other, through coturn', async () => {
  roomName = `Swarm ${Date.now().toString(36)}`;
  alice = await member('Alice', 'alice');
  bob = await member('Bob', 'bob');
  const { room } = await apiCall<{ room: { id: string } }>(base, ROOM_ROUTES.rooms, {
    method: 'POST',
    token: alice.person.token,
    body: { name: roomName, type: 'public' },
  });
  await openRooms(alice.browser.page, alice.person);
  await joinFromList(alice.browser.page, roomName);
  // Once Alice's media server announces itself full, the API sends Bob to the other one.
  await expect
    .poll(
      async () =>
        (
          await apiCall<JoinRoomResponse>(base, ROOM_ROUTES.join(room.id), {
            method: 'POST',
            token: bob.person.token,
            body: {},
          })
        ).mediaUrl,
      { timeout: 15_000 },
    )
    .not.toBe(alice.openRtc.at(-1));
  await openRooms(bob.browser.page, bob.person);
  await joinFromList(bob.browser.page, roomName);
  // One member fills a media server here: Bob's part of the room is on the other one.
  const servers = [mediaServerOf(alice), mediaServerOf(bob)];
  expect(servers.sort()).toEqual(['media-a', 'media-b']);

  await expectHearing(alice.browser.page, [bob.person], 30_000);
  await expectHearing(bob.browser.page, [alice.person], 30_000);
  // TURN_FORCE_RELAY: both transports of each page use coturn only (the local candidate may show
  // as peer-reflexive when the media server sees relayed packets from another address).
  for (const page of [alice.browser.page, bob.browser.page]) {
    const paths = await selectedPaths(page);
    expect(paths).toHaveLength(2);
    for (const { policy, local } of paths) {
      expect(policy).toBe('relay');
      expect(['relay', 'prflx']).toContain(local);
    }
  }
  origins = await Promise.all(
    [alice.browser.page, bob.browser.page].map((page) => page.evaluate(() => performance.timeOrigin)),
  );
});

for (const service of ['media-a', 'media-b'] as const) {
  test(`a rolling update of ${service} (docker service update --force): its members move, audio comes back, nobody dropped`, async () => {
    const members = [alice, bob];
    // Each page on a media server (one may still be settling after the last step's move).
    await expect
      .poll(() => members.filter((entry) => mediaServerOf(entry) === undefined).length, { timeout: 30_000 })
      .toBe(0);
    const moving = members.filter((entry) => mediaServerOf(entry) === service);
    expect(moving.length, `someone is on ${service}`).toBeGreaterThan(0);
    // Those who move count only their new connections; the others keep theirs.
    const since = await Promise.all(
      members.map(async (entry) => (moving.includes(entry) ? connectionCount(entry.browser.page) : 0)),
    );
    const tracks = await Promise.all(members.map((entry) => roomAudio(entry.browser.page)));
    const before = await containersOf(service);
    const startedAt = Date.now();
    await docker(['service', 'update', '--force', '--detach', serviceName(service)]);
    const heardAt = await Promise.all(
      members.map(async (entry, index) => {
        const other = members[1 - index] as Member;
        if (moving.includes(other) && !moving.includes(entry)) {
          // One who stays hears the one who moved once their voice comes on the track of the rejoin.
          const old = tracks[index]?.[other.person.id]?.track;
          await expect
            .poll(async () => (await roomAudio(entry.browser.page))[other.person.id]?.track, {
              timeout: 20_000,
            })
            .not.toBe(old);
        }
        await expectHearing(entry.browser.page, [other.person], 20_000, since[index]);
        return Date.now();
      }),
    );
    // Swarm takes a few seconds to stop the old task; the media server logs when its SIGTERM came.
    const sigterm = await sigtermAt(before[0] as string);
    for (const [index, entry] of members.entries()) {
      const at = heardAt[index] as number;
      const timing = {
        step: `update ${service}`,
        person: entry.person.displayName,
        moved: moving.includes(entry),
        afterCommandMs: at - startedAt,
        afterSigtermMs: at - sigterm,
      };
      timings.push(timing);
      console.log(
        `swarm: update ${service}: ${entry.person.displayName} hears again ${timing.afterSigtermMs} ms after the SIGTERM (${timing.afterCommandMs} ms after the command)`,
      );
    }
    for (const entry of moving) expect(mediaServerOf(entry)).not.toBe(service);
    await expectStillTogether();
    // What each person sees now, for the run's output (test-results/swarm/).
    for (const entry of members) {
      await entry.browser.page.screenshot({
        path: path.resolve(RESULTS, `../after-update-${service}-${entry.person.displayName}.png`),
      });
    }
    // The update finishes: a new task of the service, healthy, before the next one is rolled.
    await waitReplaced(service, before, 1);
  });
}

test('the API scaled to three replicas and back, then rolled: the app socket reconnects, live events arrive, the room plays on', async () => {
  // Three API containers started, then two replaced one after another, each healthy first.
  test.setTimeout(480_000);
  await docker(['service', 'scale', '--detach', `${serviceName('api')}=3`]);
  await waitConverged({ api: 3 });
  await docker(['service', 'scale', '--detach', `${serviceName('api')}=2`]);
  await waitConverged({ api: 2 });

  // Every replica replaced, one at a time: each page's app socket closes (1001) and reconnects.
  const sockets = [alice.appSockets, bob.appSockets];
  const before = await containersOf('api');
  const connections = await Promise.all([alice, bob].map((entry) => connectionCount(entry.browser.page)));
  await docker(['service', 'update', '--force', '--detach', serviceName('api')]);
  await waitReplaced('api', before, 2);
  await expect.poll(() => alice.appSockets, { timeout: 30_000 }).toBeGreaterThan(sockets[0] as number);
  await expect.poll(() => bob.appSockets, { timeout: 30_000 }).toBeGreaterThan(sockets[1] as number);

  // The room never depended on the API's sockets: same connections, both still hearing.
  await expectHearing(alice.browser.page, [bob.person], 20_000);
  await expectHearing(bob.browser.page, [alice.person], 20_000);
  expect(await Promise.all([alice, bob].map((entry) => connectionCount(entry.browser.page)))).toEqual(
    connections,
  );
  await expectStillTogether();

  // A live event reaches each page over its new socket (the live room list, watched again after
  // the reconnect): a room Carol opens shows in both pages' list of rooms as it is made.
  const carol = await createPerson(base, 'Carol');
  const liveRoom = `Swarm live ${Date.now().toString(36)}`;
  await apiCall(base, ROOM_ROUTES.rooms, {
    method: 'POST',
    token: carol.token,
    body: { name: liveRoom, type: 'public' },
  });
  for (const entry of [alice, bob]) {
    const page: Page = entry.browser.page;
    await expect(page.getByRole('button', { name: `Join ${liveRoom}` })).toBeVisible();
    await expect(page.getByText('Connection lost. Reconnecting…')).toBeHidden();
  }
});
