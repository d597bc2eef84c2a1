/**
 * The operator path, run for real: docker-compose.yml on test images (compose/globalSetup.ts
 * brings it up behind Caddy with its internal CA). Two people register over HTTPS; a 1:1 call
 * between two Chromium pages goes through coturn's relay and a room call through the media
 * server, both with audio measured; accounts, friends and an avatar survive `restart app`,
 * `down` + `up -d` and a backup/restore round trip; a newer app image's migration runs at start.
 * Prometheus of the `monitoring` profile scrapes the app.
 * The steps share one installation, so they run in order and stop at the first failure.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, type Page, test } from '@playwright/test';
import {
  apiCall,
  audioStats,
  befriend,
  CallBrowser,
  createPerson,
  expectHearing,
  openDashboardAs,
  type Person,
  selectedPaths,
  waitForAudioGrowth,
} from '@voice/browser-bots';
import { FRIEND_ROUTES, type FriendsResponse, ROOM_ROUTES } from '@voice/protocol';
import { gradientPng } from '../support/images.ts';
import { ComposeProject, DOCKER } from './ComposeProject.ts';
import { loadState, PROJECT_NAME, SERVICES } from './state.ts';

const run = promisify(execFile);
const state = loadState();
const project = new ComposeProject(PROJECT_NAME, state.files);
const base = state.baseUrl;
const REPO_ROOT = state.files.repoRoot;
/** Chromium trusts Caddy's internal CA for this run; the page is a secure context, so the microphone works. */
const TRUST_CADDY = [`--ignore-certificate-errors-spki-list=${state.spki.join(',')}`];
/** Enough received audio to say a voice is coming through, not just packets of silence. */
const SPEECH = { bytes: 4000, energy: 0.02, timeoutMs: 20_000 };

test.describe.configure({ mode: 'serial' });

let alice: Person;
let bob: Person;
/** SHA-256 of Alice's avatar as served, and its URL. */
let avatar: { url: string; sha256: string };

const sha256 = (bytes: ArrayBuffer) => createHash('sha256').update(Buffer.from(bytes)).digest('hex');

async function uploadAvatar(person: Person): Promise<{ url: string; sha256: string }> {
  const form = new FormData();
  form.append('avatar', new Blob([new Uint8Array(gradientPng(128))], { type: 'image/png' }), 'me.png');
  const response = await fetch(`${base}/api/users/avatar`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${person.token}` },
    body: form,
  });
  expect(response.status, await response.clone().text()).toBe(200);
  const { avatar_url: url } = (await response.json()) as { avatar_url: string };
  return { url, sha256: await servedAvatar(url) };
}

/** SHA-256 of the avatar at `url` as Caddy serves it. */
async function servedAvatar(url: string): Promise<string> {
  const response = await fetch(new URL(url, base));
  expect(response.status, `GET ${url}`).toBe(200);
  return sha256(await response.arrayBuffer());
}

/** Both accounts log in with their passwords, are still friends, and Alice's avatar is the one uploaded. */
async function expectEverythingKept(): Promise<void> {
  for (const person of [alice, bob]) {
    const { token, user } = await apiCall<{ token: string; user: { id: string; avatar_url: string | null } }>(
      base,
      '/auth/login',
      { method: 'POST', body: { username: person.username, password: `pw-${person.username}-Secret` } },
    );
    expect(user.id).toBe(person.id);
    const { friends } = await apiCall<FriendsResponse>(base, FRIEND_ROUTES.friends, { token });
    const other = person === alice ? bob : alice;
    expect(friends.map((friend) => friend.id)).toContain(other.id);
    if (person === alice) expect(user.avatar_url).toBe(avatar.url);
  }
  expect(await servedAvatar(avatar.url)).toBe(avatar.sha256);
}

/** After the app restarted: healthy again, and answering through Caddy. */
async function waitForApp(): Promise<void> {
  await project.waitHealthy(SERVICES);
  await expect
    .poll(
      () =>
        fetch(base).then(
          (response) => response.status,
          () => 0,
        ),
      { timeout: 120_000 },
    )
    .toBe(200);
}

async function launch(speaker: 'alice' | 'bob'): Promise<CallBrowser> {
  return CallBrowser.launch({ speaker, baseURL: base, args: TRUST_CADDY });
}

const friendRow = (page: Page, name: string) =>
  page.getByRole('list', { name: 'Friends' }).getByRole('listitem').filter({ hasText: name });
const callRegion = (page: Page, name: string) => page.getByRole('region', { name: `Call with ${name}` });

test("HTTPS through Caddy: HTTP/2, HTTP redirected, the app's headers kept, its port on loopback; two people, friends, an avatar", async () => {
  expect(state.alpn).toBe('h2');
  const [proxied, direct] = await Promise.all([fetch(base), fetch(state.appUrl)]);
  expect(proxied.status).toBe(200);
  expect(direct.status).toBe(200);
  expect(proxied.headers.get('content-security-policy')).toBeTruthy();
  for (const [name, value] of direct.headers) {
    if (
      /^(content-security-policy|strict-transport-security|x-|referrer-policy|permissions-policy|cross-origin-)/.test(
        name,
      )
    ) {
      expect(proxied.headers.get(name), name).toBe(value);
    }
  }
  // Plain HTTP only redirects; the app's own port listens on loopback only.
  const redirect = await fetch(`${state.httpUrl}/dashboard`, { redirect: 'manual' });
  expect(redirect.status).toBe(308);
  expect(redirect.headers.get('location')).toMatch(/^https:\/\/localhost\/dashboard$/);
  expect((await project.compose(['port', 'app', '8080'])).toString().trim()).toBe(new URL(state.appUrl).host);

  alice = await createPerson(base, 'Alice');
  bob = await createPerson(base, 'Bob');
  await befriend(base, alice, bob);
  avatar = await uploadAvatar(alice);
  await expectEverythingKept();
});

test('Prometheus (profile `monitoring`) scrapes the app and the media server on their unpublished metrics ports', async () => {
  type Query = { data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
  const query = async (promql: string) => {
    const response = await fetch(`${state.prometheusUrl}/api/v1/query?query=${encodeURIComponent(promql)}`);
    return ((await response.json()) as Query).data.result;
  };
  // The first scrape comes within one scrape interval (15 s) of Prometheus's start.
  await expect
    .poll(async () => (await query('up{job="app"}')).map((r) => r.value[1]), { timeout: 60_000 })
    .toEqual(['1']);
  expect((await query('process_resident_memory_bytes{job="app"}')).length).toBeGreaterThan(0);
  // The media server on the host's network, read on the compose bridge's address.
  await expect
    .poll(async () => (await query('up{job="media-server"}')).map((r) => r.value[1]), { timeout: 60_000 })
    .toEqual(['1']);
});

test('`docker-compose run --rm app npm run doctor` goes through the deployment in the app image', async () => {
  const [command, ...args] = project.commandLine.split(' ');
  // Its exit code says whether every check passed; here coturn's 127.0.0.1 of the test's
  // TURN_URLS is the browsers' loopback, not the app container's, so the TURN lines may fail.
  const { stdout } = (await run(
    command as string,
    [...args, 'run', '--rm', '-T', 'app', 'npm', 'run', '--silent', 'doctor'],
    {
      env: project.env,
      timeout: 300_000,
      maxBuffer: 16 * 1024 * 1024,
    },
  ).catch((error: { stdout?: string; message: string }) => {
    if (typeof error.stdout !== 'string' || error.stdout === '') throw new Error(error.message);
    return { stdout: error.stdout };
  })) as { stdout: string };
  for (const line of [
    'Variables',
    'JWT_SECRET',
    'TURN_SECRET',
    'PUBLIC_URL',
    'Database',
    'Migrations',
    'Redis',
  ]) {
    expect(stdout, stdout).toMatch(new RegExp(`^✓ +${line}:`, 'm'));
  }
  expect(stdout).toMatch(/^\d+ passed, \d+ failed/m);
});

test('a 1:1 call between two pages goes through coturn, and both voices come through', async () => {
  const a = await launch('alice');
  const b = await launch('bob');
  try {
    await openDashboardAs(b.page, bob);
    await b.page.getByRole('tab', { name: 'Friends' }).click();
    await openDashboardAs(a.page, alice);
    await a.page.getByRole('tab', { name: 'Friends' }).click();
    expect(await a.page.evaluate(() => window.isSecureContext)).toBe(true);
    await expect(friendRow(a.page, 'Bob')).toContainText('Online');
    await friendRow(a.page, 'Bob').getByRole('button', { name: 'Call Bob' }).click();
    await expect(b.page.getByRole('alertdialog')).toBeVisible();
    await b.page.getByRole('alertdialog').getByRole('button', { name: 'Accept' }).click();
    // Connected on both sides (the call timer runs) before the peer connections are measured.
    await expect(callRegion(a.page, 'Bob').locator('time')).toHaveText(/^\d+:\d\d$/);
    await expect(callRegion(b.page, 'Alice').locator('time')).toHaveText(/^\d+:\d\d$/);
    await waitForAudioGrowth(a.page, SPEECH);
    await waitForAudioGrowth(b.page, SPEECH);
    for (const page of [a.page, b.page]) {
      const stats = await audioStats(page);
      expect(stats.localCandidateType).toBe('relay');
      expect(stats.remoteCandidateType).toBe('relay');
    }
    await callRegion(b.page, 'Alice').getByRole('button', { name: 'Leave call' }).click();
    await expect(callRegion(a.page, 'Bob')).toBeHidden();
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test('a room call through the media server (its own service, on the host network, behind Caddy): each hears the other', async () => {
  const roomName = `Compose ${Date.now().toString(36)}`;
  await apiCall(base, ROOM_ROUTES.rooms, {
    method: 'POST',
    token: alice.token,
    body: { name: roomName, type: 'public' },
  });
  const a = await launch('alice');
  const b = await launch('bob');
  const sockets: string[] = [];
  a.page.on('websocket', (socket) => sockets.push(socket.url()));
  try {
    for (const [page, person] of [
      [a.page, alice],
      [b.page, bob],
    ] as const) {
      await openDashboardAs(page, person);
      await page.getByRole('tab', { name: 'Rooms' }).click();
      await page.getByRole('button', { name: `Join ${roomName}` }).click();
      await expect(page.getByRole('region', { name: `Room ${roomName}` })).toBeVisible();
    }
    await expectHearing(a.page, [bob], 30_000);
    await expectHearing(b.page, [alice], 30_000);
    // The room's /rtc is the app's own origin: Caddy passes it to the media-server service.
    const rtc = `${base.replace(/^https:/, 'wss:')}/rtc`;
    expect(
      sockets.some((url) => url.split('?')[0] === rtc),
      sockets.join(' '),
    ).toBe(true);
    // TURN_FORCE_RELAY applies to rooms too: both transports of each page may only use coturn.
    // The local candidate may show as peer-reflexive rather than relay when the SFU sees the
    // relayed packets from another address than coturn's relay candidate names; its base is
    // still the relay candidate (the policy allows nothing else).
    for (const page of [a.page, b.page]) {
      const paths = await selectedPaths(page);
      expect(paths).toHaveLength(2);
      for (const { policy, local } of paths) {
        expect(policy).toBe('relay');
        expect(['relay', 'prflx']).toContain(local);
      }
    }
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test('`docker-compose restart app` stops the app gracefully and keeps accounts, friends and the avatar', async () => {
  await project.compose(['restart', 'app']);
  await waitForApp();
  // SIGTERM reached the app itself (not only a wrapper), which then closed its sockets and workers.
  expect((await project.compose(['logs', '--no-color', 'app'])).toString()).toContain(
    'SIGTERM: shutting down',
  );
  await expectEverythingKept();
});

test('`docker-compose down` and `up -d` keep them too', async () => {
  await project.compose(['down']);
  await project.compose(['up', '-d']);
  await waitForApp();
  await expectEverythingKept();
});

test('deploy/backup.sh and deploy/restore.sh: what changed after the backup is undone', async () => {
  const backups = await mkdtemp(path.join(state.runDir, 'backups-'));
  const { stdout } = await run('bash', [path.join(REPO_ROOT, 'deploy/backup.sh'), backups], {
    cwd: REPO_ROOT,
    env: project.env,
    maxBuffer: 64 * 1024 * 1024,
  });
  const backup = stdout.trim().split('\n').at(-1) as string;
  expect(backup.startsWith(backups)).toBe(true);

  // After the backup: the friendship ends and Alice's avatar is replaced (the old file goes).
  await apiCall(base, FRIEND_ROUTES.unfriend(alice.id), { method: 'DELETE', token: bob.token });
  const replaced = await uploadAvatar(alice);
  expect(replaced.url).not.toBe(avatar.url);
  const { friends } = await apiCall<FriendsResponse>(base, FRIEND_ROUTES.friends, { token: alice.token });
  expect(friends).toHaveLength(0);

  await run('bash', [path.join(REPO_ROOT, 'deploy/restore.sh'), backup], {
    cwd: REPO_ROOT,
    env: project.env,
    maxBuffer: 64 * 1024 * 1024,
  });
  await waitForApp();
  await expectEverythingKept();
  expect((await fetch(new URL(replaced.url, base))).status).toBe(404);
});

test('a newer app image with a new migration: `up -d` runs it at start, and the data stays', async () => {
  // The next release: the current image plus one migration, listed where the app lists them.
  const context = await mkdtemp(path.join(state.runDir, 'next-image-'));
  await writeFile(
    path.join(context, '20991231000000_compose_upgrade.ts'),
    `import type { Knex } from 'knex';
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('compose_upgrade_check', (table) => table.text('note'));
  await knex('compose_upgrade_check').insert({ note: 'added by the newer image' });
}
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('compose_upgrade_check');
}
`,
  );
  await writeFile(
    path.join(context, 'list.cjs'),
    `const fs = require('node:fs');
const file = '/app/api/src/db/migrations/index.ts';
const before = fs.readFileSync(file, 'utf8');
const after = before
  .replace("import type { Knex } from 'knex';", "import type { Knex } from 'knex';\\nimport * as composeUpgrade from './20991231000000_compose_upgrade.ts';")
  .replace(/\\n\\];\\n/, "\\n  ['20991231000000_compose_upgrade', composeUpgrade],\\n];\\n");
if (after.split('composeUpgrade').length !== 3) throw new Error('migration list not found in ' + file);
fs.writeFileSync(file, after);
`,
  );
  await writeFile(
    path.join(context, 'Dockerfile'),
    `FROM voice-test/app:current
USER root
COPY 20991231000000_compose_upgrade.ts /app/api/src/db/migrations/
COPY list.cjs /tmp/list.cjs
RUN node /tmp/list.cjs && rm /tmp/list.cjs
USER node
`,
  );
  await run(DOCKER, ['build', '--network', 'host', '-q', '-t', 'voice-test/app:next', context], {
    env: { ...process.env, DOCKER_BUILDKIT: '0' },
  });
  expect(await project.sql("SELECT to_regclass('compose_upgrade_check') IS NULL")).toBe('t');

  await project.setEnv('APP_IMAGE', 'voice-test/app:next');
  await project.compose(['up', '-d']);
  await waitForApp();
  expect(await project.sql('SELECT note FROM compose_upgrade_check')).toBe('added by the newer image');
  expect(
    await project.sql("SELECT count(*) FROM knex_migrations WHERE name = '20991231000000_compose_upgrade'"),
  ).toBe('1');
  await expectEverythingKept();
});
