/**
 * npm run bench:api — GET /api/auth/me at 50 connections for 20 s against PostgreSQL,
 * then logins/s. Goal: 3,000 requests/s with p99 under 25 ms on one API process.
 * DATABASE_URL defaults to the local PostgreSQL; BENCH_SECONDS shortens the runs.
 */
import autocannon from 'autocannon';
import { DEFAULT_DATABASE_URL, report, startApi } from './harness.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;

function run(options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

const summary = (r: autocannon.Result) => ({
  requestsPerSecond: Math.round(r.requests.average),
  latencyMs: { p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max },
  total: r.requests.total,
  non2xx: r.non2xx,
  errors: r.errors,
  timeouts: r.timeouts,
});

const api = await startApi(18_080, { DATABASE_URL: databaseUrl });
try {
  const username = `bench_${Date.now().toString(36)}`;
  const password = 'bench-password';
  const registered = await fetch(`${api.url}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, email: `${username}@bench.test`, password, acceptTerms: true }),
  });
  const { token } = (await registered.json()) as { token: string };

  // Warm-up: JIT and the connection pool.
  await run({
    url: `${api.url}/api/auth/me`,
    connections: 10,
    duration: 2,
    headers: { authorization: `Bearer ${token}` },
  });
  const me = await run({
    url: `${api.url}/api/auth/me`,
    connections: 50,
    duration: seconds,
    headers: { authorization: `Bearer ${token}` },
  });
  const logins = await run({
    url: `${api.url}/api/auth/login`,
    connections: 8,
    duration: Math.max(5, Math.round(seconds / 2)),
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  report('api', {
    database: databaseUrl.replace(/\/\/[^@]*@/, '//'),
    getMe: { connections: 50, seconds, ...summary(me) },
    login: { connections: 8, ...summary(logins), loginsPerSecond: Math.round(logins.requests.average) },
    goal: { requestsPerSecond: 3000, p99Ms: 25 },
  });
} finally {
  await api.stop();
}
