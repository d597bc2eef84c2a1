/**
 * npm run bench:api — GET /api/auth/me at 50 connections against PostgreSQL, beside a bare
 * Koa router endpoint answering the same JSON (bench/src/bareKoa.ts) in the same run, then
 * logins/s. Goals: /me at least half of bare Koa's requests/s, p99 under 25 ms.
 * The two are measured in alternating rounds (BENCH_ROUNDS, default 2), so a neighbour's load
 * on a shared machine weighs on both alike. DATABASE_URL defaults to the local PostgreSQL;
 * BENCH_SECONDS (default 20) is each one's total time.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { DEFAULT_DATABASE_URL, REPO_ROOT, report, startApi } from './harness.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
const CONNECTIONS = 50;
const GOAL = { ratioToBareKoa: 0.5, p99Ms: 25 };

function run(options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/** CPU time (user + system) a process has used so far, in µs, from /proc. */
function cpuMicros(pid: number): number {
  // Fields 14 and 15 of /proc/<pid>/stat (after the command name in parentheses), in clock ticks.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
}

/** One measured run, with the server's CPU time per answer: less swayed by a neighbour's load than requests/s. */
async function measure(pid: number, options: autocannon.Options) {
  const before = cpuMicros(pid);
  const result = await run(options);
  return Object.assign(result, { cpuMicrosPerRequest: (cpuMicros(pid) - before) / result.requests.total });
}

type Measured = Awaited<ReturnType<typeof measure>>;

const summary = (r: autocannon.Result) => ({
  requestsPerSecond: Math.round(r.requests.average),
  latencyMs: { p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max },
  total: r.requests.total,
  non2xx: r.non2xx,
  errors: r.errors,
  timeouts: r.timeouts,
});

/** The rounds of one endpoint together: requests/s over all of them, the worst p99 and max. */
function overall(results: Measured[]) {
  const total = results.reduce((sum, r) => sum + r.requests.total, 0);
  const cpu = results.reduce((sum, r) => sum + r.cpuMicrosPerRequest * r.requests.total, 0);
  const duration = results.reduce((sum, r) => sum + r.duration, 0);
  return {
    requestsPerSecond: Math.round(total / duration),
    serverCpuMicrosPerRequest: Math.round(cpu / total),
    latencyMs: {
      p50: Math.max(...results.map((r) => r.latency.p50)),
      p99: Math.max(...results.map((r) => r.latency.p99)),
      max: Math.max(...results.map((r) => r.latency.max)),
    },
    total,
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
    errors: results.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
    rounds: results.map((r) => ({
      ...summary(r),
      serverCpuMicrosPerRequest: Math.round(r.cpuMicrosPerRequest),
    })),
  };
}

async function startBareKoa(port: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/src/bareKoa.ts', String(port)], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`bare Koa exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/api/health`)).ok) break;
    } catch {}
    if (Date.now() > deadline) throw new Error('bare Koa did not start within 30 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid as number,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

const api = await startApi(18_080, { DATABASE_URL: databaseUrl });
const bare = await startBareKoa(18_081).catch(async (error: unknown) => {
  await api.stop();
  throw error;
});
try {
  const username = `bench_${Date.now().toString(36)}`;
  const password = 'bench-password';
  const registered = await fetch(`${api.url}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, email: `${username}@bench.test`, password, acceptTerms: true }),
  });
  const { token } = (await registered.json()) as { token: string };
  const meOf = (server: { url: string; pid: number }, connections: number, duration: number) =>
    measure(server.pid, {
      url: `${server.url}/api/auth/me`,
      connections,
      duration,
      headers: { authorization: `Bearer ${token}` },
    });

  // Warm-up: JIT and the connection pool.
  const apiServer = { url: api.url, pid: api.child.pid as number };
  await meOf(bare, 10, 2);
  await meOf(apiServer, 10, 2);
  const bareRounds: Measured[] = [];
  const meRounds: Measured[] = [];
  const roundSeconds = Math.max(1, Math.round(seconds / rounds));
  for (let round = 0; round < rounds; round++) {
    bareRounds.push(await meOf(bare, CONNECTIONS, roundSeconds));
    meRounds.push(await meOf(apiServer, CONNECTIONS, roundSeconds));
  }
  const logins = await run({
    url: `${api.url}/api/auth/login`,
    connections: 8,
    duration: Math.max(5, Math.round(seconds / 2)),
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  const getMe = overall(meRounds);
  const bareKoa = overall(bareRounds);
  const ratio = Math.round((getMe.requestsPerSecond / bareKoa.requestsPerSecond) * 1000) / 1000;
  report('api', {
    database: databaseUrl.replace(/\/\/[^@]*@/, '//'),
    getMe: { connections: CONNECTIONS, seconds: roundSeconds * rounds, ...getMe },
    bareKoa: { connections: CONNECTIONS, seconds: roundSeconds * rounds, ...bareKoa },
    ratioToBareKoa: ratio,
    login: { connections: 8, ...summary(logins), loginsPerSecond: Math.round(logins.requests.average) },
    goal: GOAL,
    met: ratio >= GOAL.ratioToBareKoa && getMe.latencyMs.p99 < GOAL.p99Ms,
  });
  console.log(
    `GET /api/auth/me: ${getMe.requestsPerSecond}/s (${getMe.serverCpuMicrosPerRequest} µs CPU each), bare Koa: ${bareKoa.requestsPerSecond}/s (${bareKoa.serverCpuMicrosPerRequest} µs), ratio ${ratio} (goal ≥ ${GOAL.ratioToBareKoa})`,
  );
} finally {
  await bare.stop();
  await api.stop();
}
