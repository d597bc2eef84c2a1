/**
 * `npm run bench:loadtest`: what the load tester's own participants cost on this machine. The
 * real API (started as the e2e fixture starts it, with its SMTP sink) serves one public room;
 * for listeners and for speakers, at 1, 4 and 8 participants a browser, N participants join and
 * stay; the generator's CPU (percent of one core) and the sum of RSS over the steady part, its
 * PSS once halfway through, less what the same run costs without them, divided by N. The API and its media
 * worker are left out of the cost. Prints a table and writes bench-results/loadtest.json.
 *
 * Plots the CPU a participant against pages a browser into bench/results/loadtest-cost.png.
 *
 * BENCH_PARTICIPANTS (default 8) is N; BENCH_STEADY_S (default 20) the measured seconds;
 * BENCH_PER_BROWSER (`1,4,8`) and BENCH_ROLES (`listener,speaker`) choose the rows.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { apiCall, createPerson, type Person } from '@voice/browser-bots';
import { ROOM_ROUTES } from '@voice/protocol';
import { lineChart, renderPng } from '../../bench/src/chart.ts';
import { ApiServer, REPO_ROOT } from '../../e2e/support/ApiServer.ts';
import { Mailbox } from '../../e2e/support/Mailbox.ts';
import { runRoomParticipants, treePssMb } from './participants/index.ts';
import type { GeneratorSample } from './results/types.ts';

const PARTICIPANTS = Number(process.env.BENCH_PARTICIPANTS ?? 8);
const STEADY_MS = Number(process.env.BENCH_STEADY_S ?? 20) * 1000;
/** The first seconds after the ramp are left out: first-audio polls and the app settling. */
const SETTLE_MS = 5_000;
const PER_BROWSER = (process.env.BENCH_PER_BROWSER ?? '1,4,8').split(',').map(Number);
const ROLES = (process.env.BENCH_ROLES ?? 'listener,speaker').split(',') as ('listener' | 'speaker')[];
const GOAL = { listenerCpuPct: 4, listenerMb: 40, speakerCpuPct: 6 };

/** Mean CPU and memory of the generator over a run's steady part. */
interface Cost {
  cpuPct: number;
  pssMb: number;
  rssMb: number;
}

interface Row {
  role: 'listener' | 'speaker';
  perBrowser: number;
  participants: number;
  /** Everyone joined and heard a speaker (a speaker alone hears nobody). */
  allJoined: boolean;
  allHeard: boolean;
  cpuPctEach: number;
  pssMbEach: number;
  rssMbEach: number;
}

async function main(): Promise<void> {
  const mailbox = await Mailbox.start();
  const api = await ApiServer.start({
    smtpUrl: mailbox.url,
    logFile: path.join(REPO_ROOT, 'bench-results', 'loadtest-api.log'),
    env: { RATE_LIMIT_FACTOR: '1000000', LOG_LEVEL: 'warn' },
  });
  try {
    const url = api.url;
    const people: Person[] = [];
    for (let i = 0; i <= PARTICIPANTS; i++) people.push(await createPerson(url, `Bench ${i}`));
    const admin = people[0] as Person;
    const { room } = await apiCall<{ room: { id: string } }>(url, ROOM_ROUTES.rooms, {
      method: 'POST',
      token: admin.token,
      body: { name: `Load bench ${Date.now().toString(36)}`, type: 'public' },
    });
    const exclude = api.pid === undefined ? [] : [api.pid];
    const measure = async (accounts: Person[], speakers: number, perBrowser: number) => {
      let steadyFrom = Number.POSITIVE_INFINITY;
      let pss: Promise<number> | null = null;
      let shown = 0;
      const outcome = await runRoomParticipants({
        url,
        roomId: room.id,
        accounts,
        speakers,
        perBrowser,
        rampPerSec: 4,
        durationMs: STEADY_MS + SETTLE_MS,
        excludeFromCost: exclude,
        onProgress: (snapshot) => {
          if (snapshot.phase === 'steady' && steadyFrom === Number.POSITIVE_INFINITY) steadyFrom = snapshot.t;
          // PSS is dear to read: once, halfway through the measured seconds.
          if (!pss && snapshot.t >= steadyFrom + SETTLE_MS + STEADY_MS / 2)
            pss = treePssMb(process.pid, exclude);
          if (snapshot.t - shown >= 10_000) {
            shown = snapshot.t;
            const { phase, joined, hearing, failed, total, generator } = snapshot;
            console.log(
              `  ${Math.round(snapshot.t / 1000)} s ${phase}: ${joined}/${total} joined, ${hearing} hearing, ${failed} failed, CPU ${generator?.cpuPct ?? '?'}%`,
            );
          }
        },
        warn: (message) => console.warn(message),
      });
      for (const p of outcome.participants) if (p.error) console.log(`  ${p.name} (${p.role}): ${p.error}`);
      const steady = outcome.generator.filter((s) => s.t >= steadyFrom + SETTLE_MS);
      return { outcome, cost: { ...mean(steady), pssMb: (await pss) ?? 0 } };
    };

    // One speaker alone: what every listener run also pays (its browser, the Node process).
    const speaker = people.slice(0, 1);
    const baseline = (await measure(speaker, 1, 1)).cost;
    console.log(`baseline (one speaker): ${format(baseline)}`);
    const rows: Row[] = [];
    for (const role of ROLES) {
      for (const perBrowser of PER_BROWSER) {
        const accounts = role === 'listener' ? people : people.slice(1);
        const { outcome, cost } = await measure(accounts, role === 'listener' ? 1 : PARTICIPANTS, perBrowser);
        // Listener runs carry the baseline's speaker; speaker runs are all measured participants.
        const extra = role === 'listener' ? subtract(cost, baseline) : cost;
        const measured = outcome.participants.filter((p) => p.role === role);
        rows.push({
          role,
          perBrowser,
          participants: measured.length,
          allJoined: measured.every((p) => p.joinMs !== null && p.error === null),
          allHeard: measured.every((p) => p.firstAudioMs !== null),
          cpuPctEach: round(extra.cpuPct / measured.length),
          pssMbEach: round(extra.pssMb / measured.length),
          rssMbEach: round(extra.rssMb / measured.length),
        });
        console.log(`${role} ×${measured.length}, ${perBrowser} a browser: ${format(cost)}`);
      }
    }
    printTable(rows);
    const record = {
      benchmark: 'loadtest',
      at: new Date().toISOString(),
      cores: cpus().length,
      participants: PARTICIPANTS,
      steadySeconds: STEADY_MS / 1000,
      baseline,
      goal: GOAL,
      rows,
    };
    const dir = path.join(REPO_ROOT, 'bench-results');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'loadtest.json');
    writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
    console.log(`written to ${path.relative(REPO_ROOT, file)}`);
    const plot = path.join(REPO_ROOT, 'bench', 'results', 'loadtest-cost.png');
    await renderPng(
      lineChart({
        title: `The load tester's CPU a participant (${PARTICIPANTS} a row, ${cpus().length} cores)`,
        xLabel: 'participants (pages) a browser',
        yLabel: '% of a core a participant',
        series: [
          { name: 'listeners', color: '#2563eb', points: pointsOf(rows, 'listener') },
          { name: 'speakers', color: '#dc2626', points: pointsOf(rows, 'speaker') },
        ].filter((series) => series.points.length > 0),
        limits: [
          { y: GOAL.listenerCpuPct, label: `listener goal ${GOAL.listenerCpuPct}%` },
          { y: GOAL.speakerCpuPct, label: `speaker goal ${GOAL.speakerCpuPct}%` },
        ],
        yTick: (y) => `${y}%`,
      }),
      plot,
    );
    console.log(`plotted into ${path.relative(REPO_ROOT, plot)}`);
  } finally {
    await api.stop();
    await mailbox.close();
  }
}

function mean(samples: GeneratorSample[]): Omit<Cost, 'pssMb'> {
  const n = Math.max(1, samples.length);
  const sum = (pick: (s: GeneratorSample) => number) => samples.reduce((total, s) => total + pick(s), 0) / n;
  return { cpuPct: sum((s) => s.cpuPct), rssMb: sum((s) => s.rssMb) };
}

function pointsOf(rows: Row[], role: Row['role']): [number, number][] {
  return rows.filter((row) => row.role === role).map((row) => [row.perBrowser, row.cpuPctEach]);
}

function subtract(a: Cost, b: Cost): Cost {
  return { cpuPct: a.cpuPct - b.cpuPct, pssMb: a.pssMb - b.pssMb, rssMb: a.rssMb - b.rssMb };
}

const round = (value: number) => Math.round(value * 10) / 10;
const format = (cost: Cost) =>
  `CPU ${round(cost.cpuPct)}% of a core, PSS ${round(cost.pssMb)} MB, RSS sum ${round(cost.rssMb)} MB`;

function printTable(rows: Row[]): void {
  console.log(
    '\nrole      per browser  participants  CPU % core each  PSS MB each  RSS MB each  joined  heard',
  );
  for (const row of rows) {
    const goal = row.role === 'listener' ? GOAL.listenerCpuPct : GOAL.speakerCpuPct;
    console.log(
      [
        row.role.padEnd(9),
        String(row.perBrowser).padStart(11),
        String(row.participants).padStart(13),
        `${row.cpuPctEach.toFixed(1)} (≤ ${goal})`.padStart(16),
        row.pssMbEach.toFixed(1).padStart(12),
        row.rssMbEach.toFixed(1).padStart(12),
        String(row.allJoined).padStart(7),
        String(row.allHeard).padStart(6),
      ].join(' '),
    );
  }
}

await main();
