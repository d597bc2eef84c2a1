/**
 * The load tester's CLI against the local app, as a load tester runs it: `seed` 10 accounts
 * through LOADTEST_SECRET, `run` 6 participants (3 speakers, 3 pages a browser) for 20 s with
 * every participant hearing audio and the report naming all 6; an impossible SLO exits 1 and
 * names it; a dead URL exits 2 with one line; `--impair loss=10%` on 2 participants shows their
 * loss between 5% and 15% in results.json; a stage of 4 (`--stage`), whose second speaker raises
 * its hand and is invited by the first, heard by the audience; `cleanup` leaves no test account. Needs root for the
 * impairment's network namespaces, as `--impair` does.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { apiCall, type Person } from '@voice/browser-bots';
import { freePort } from '@voice/bus/testing';
import { FRIEND_ROUTES } from '@voice/protocol';
import { ApiServer, REPO_ROOT } from '../support/ApiServer.ts';
import { Mailbox } from '../support/Mailbox.ts';

const SECRET = randomBytes(16).toString('hex');
/** A prefix of this run's own, so a shared database keeps other runs' accounts apart. */
const PREFIX = `lt${randomBytes(3).toString('hex')}_`;

interface Cli {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `voice-loadtest …` as a person types it; resolves when it exits. */
function cli(args: string[]): Promise<Cli> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'loadtest/src/main.ts', ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, LOADTEST_SECRET: SECRET },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A short run refused before anything starts: exit 2 and one line, which it returns. */
async function refusal(args: string[]): Promise<string> {
  const refused = await cli(['run', ...args, '--speakers', '0', '--participants', '2', '--duration', '5s']);
  expect(refused.code, refused.stderr).toBe(2);
  expect(refused.stderr.trim().split('\n')).toHaveLength(1);
  return refused.stderr.trim();
}

interface Summary {
  participants: Array<{
    id: string;
    name: string;
    role: string;
    heard: boolean | null;
    lossPct: number | null;
    impair: unknown;
    stageMs: number | null;
  }>;
  verdicts: Array<{ metric: string; held: boolean }>;
}

test.describe('the load tester', () => {
  test.describe.configure({ mode: 'serial' });
  let api: ApiServer;
  let mailbox: Mailbox;
  let dir: string;

  test.beforeAll(async () => {
    const testInfo = test.info();
    mailbox = await Mailbox.start();
    api = await ApiServer.start({
      smtpUrl: mailbox.url,
      logFile: path.join(testInfo.project.outputDir, 'loadtest-cli-api.log'),
      env: { LOADTEST_SECRET: SECRET },
    });
    dir = await mkdtemp(path.join(tmpdir(), 'voice-loadtest-'));
  });

  test.afterAll(async () => {
    await api?.stop();
    await mailbox?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('seed, a room of 6 for 20 s with everyone hearing, an impossible SLO, a dead URL, an impairment, cleanup', async () => {
    test.setTimeout(420_000);
    const accounts = path.join(dir, 'accounts.json');
    const seeded = await cli([
      'seed',
      '--url',
      api.url,
      '--count',
      '10',
      '--prefix',
      PREFIX,
      '--out',
      accounts,
    ]);
    expect(seeded.stderr).toBe('');
    expect(seeded.code).toBe(0);

    // 6 participants, 3 speaking, 3 pages a browser, 20 s: every SLO held, everyone heard audio.
    // (Each page in a room is a third of a core: 8 pages outran this two-core machine's CPU.)
    const out = path.join(dir, 'room');
    const room = `Load test ${PREFIX}`;
    const common = ['--room', room, '--accounts', accounts, '--per-browser', '3'];
    const run = await cli([
      'run',
      '--url',
      api.url,
      ...common,
      '--create',
      '--k',
      '2',
      '--participants',
      '6',
      '--speakers',
      '3',
      '--duration',
      '20s',
      '--out',
      out,
    ]);
    const summary = JSON.parse(await readFile(path.join(out, 'summary.json'), 'utf8')) as Summary;
    // A failed run says why each participant failed, not only the progress it printed.
    expect(run.code, `${run.stderr}\n${JSON.stringify(summary.participants, null, 1)}`).toBe(0);
    expect(summary.participants).toHaveLength(6);
    expect(summary.participants.map((p) => p.heard)).toEqual(Array(6).fill(true));
    expect(existsSync(path.join(out, 'results.json'))).toBe(true);
    const report = await readFile(path.join(out, 'report.html'), 'utf8');
    for (const participant of summary.participants) expect(report).toContain(participant.name);

    // The room forwards the 2 loudest (made with --k 2): a run that asks for 3 is refused at once.
    expect(await refusal(['--url', api.url, ...common, '--k', '3'])).toBe(
      `voice-loadtest: room '${room}' forwards the 2 loudest voices, not --k 3: change it in the room's settings, or run with --create and a new --room`,
    );

    // The room is no stage: --stage is refused at once.
    expect(await refusal(['--url', api.url, ...common, '--stage'])).toBe(
      `voice-loadtest: room '${room}' is not a stage: run without --stage, or with --create and a new --room`,
    );

    // A stage of 4: the first account (its admin) on stage from the start, the second raising its
    // hand and invited by the first through the app, two in the audience hearing both.
    const stageOut = path.join(dir, 'stage');
    const stageRoom = `Stage ${PREFIX}`;
    const stageArgs = ['--url', api.url, '--room', stageRoom, '--accounts', accounts, '--per-browser', '2'];
    const staged = await cli([
      'run',
      ...stageArgs,
      '--create',
      '--stage',
      '--participants',
      '4',
      '--speakers',
      '2',
      '--duration',
      '10s',
      '--out',
      stageOut,
    ]);
    expect(staged.code, `${staged.stderr}\n${staged.stdout}`).toBe(0);
    const onStage = (JSON.parse(await readFile(path.join(stageOut, 'summary.json'), 'utf8')) as Summary)
      .participants;
    expect(onStage.map((p) => [p.role, p.heard])).toEqual([
      ['speaker', true],
      ['speaker', true],
      ['listener', true],
      ['listener', true],
    ]);
    expect(onStage.map((p) => p.stageMs === null)).toEqual([true, false, true, true]);
    expect(onStage[1]?.stageMs).toBeGreaterThan(0);
    const stageResults = JSON.parse(await readFile(path.join(stageOut, 'results.json'), 'utf8')) as {
      participants: Array<{
        samples: Array<{ energyBySpeaker: Record<string, number>; outboundKbps: number }>;
      }>;
    };
    const speakerIds = onStage.slice(0, 2).map((p) => p.id);
    for (const audience of stageResults.participants.slice(2)) {
      const last = audience.samples.at(-1);
      for (const id of speakerIds) expect(last?.energyBySpeaker[id] ?? 0).toBeGreaterThan(0.01);
      // The audience sends no voice.
      expect(Math.max(...audience.samples.map((sample) => sample.outboundKbps))).toBeLessThan(1);
    }
    // A stage run without --stage is refused: its speakers would never be invited.
    expect(await refusal(stageArgs)).toBe(
      `voice-loadtest: room '${stageRoom}' is a stage: run with --stage (the first account invites the speakers)`,
    );

    // The same room with an SLO nobody can meet: exit 1, and the summary names it.
    const impossible = await cli([
      'run',
      '--url',
      api.url,
      ...common,
      '--participants',
      '4',
      '--speakers',
      '2',
      '--duration',
      '5s',
      '--slo',
      'joinP95<1',
      '--out',
      path.join(dir, 'impossible'),
    ]);
    expect(impossible.code, impossible.stderr).toBe(1);
    expect(impossible.stdout).toMatch(/BREACHED\s+joinP95 < 1 ?ms/);

    // Nothing listening: one line, exit 2, before any browser starts.
    const dead = await cli([
      'run',
      ...common,
      '--url',
      `http://127.0.0.1:${await freePort()}`,
      '--participants',
      '2',
      '--speakers',
      '1',
      '--duration',
      '5s',
    ]);
    expect(dead.code).toBe(2);
    expect(dead.stderr.trim().split('\n')).toHaveLength(1);
    expect(dead.stderr).toMatch(/^voice-loadtest: cannot reach http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/);

    // 10% loss on 2 of 4 participants: their inbound loss is 5–15%, the others' is not.
    const impairedOut = path.join(dir, 'impaired');
    const impaired = await cli([
      'run',
      '--url',
      api.url,
      ...common,
      '--participants',
      '4',
      '--speakers',
      '2',
      '--duration',
      '20s',
      '--impair',
      'loss=10%',
      '--impair-share',
      '2',
      '--out',
      impairedOut,
    ]);
    // The summary table (stdout) says why a participant failed.
    expect(impaired.code, `${impaired.stderr}\n${impaired.stdout}`).toBe(0);
    const hurt = (JSON.parse(await readFile(path.join(impairedOut, 'summary.json'), 'utf8')) as Summary)
      .participants;
    const lossOf = (withImpair: boolean) =>
      hurt.filter((p) => Boolean(p.impair) === withImpair).map((p) => p.lossPct);
    expect(lossOf(true)).toHaveLength(2);
    for (const loss of lossOf(true)) {
      expect(loss).toBeGreaterThanOrEqual(5);
      expect(loss).toBeLessThanOrEqual(15);
    }
    for (const loss of lossOf(false)) expect(loss ?? 0).toBeLessThan(2);

    // cleanup: no test account of this prefix is left. A test account sees only test accounts in
    // search: one of another prefix looks for them before and after.
    const watcherFile = path.join(dir, 'watcher.json');
    const watcherPrefix = `${PREFIX.slice(0, -1)}w_`;
    expect(
      (await cli(['seed', '--url', api.url, '--count', '1', '--prefix', watcherPrefix, '--out', watcherFile]))
        .code,
    ).toBe(0);
    const [watcher] = (JSON.parse(await readFile(watcherFile, 'utf8')) as { accounts: Person[] }).accounts;
    const search = () =>
      apiCall<{ users: unknown[] }>(api.url, FRIEND_ROUTES.search, {
        method: 'POST',
        token: watcher?.token,
        body: { searchTerm: PREFIX },
      }).then(({ users }) => users.length);
    expect(await search()).toBeGreaterThan(0);
    const cleaned = await cli(['cleanup', '--url', api.url, '--prefix', PREFIX]);
    expect(cleaned.code, cleaned.stderr).toBe(0);
    expect(cleaned.stdout).toContain('removed 10 test accounts');
    expect(await search()).toBe(0);
    expect((await cli(['cleanup', '--url', api.url, '--prefix', watcherPrefix])).code).toBe(0);
  });
});
