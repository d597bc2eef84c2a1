/**
 * npm run bench:presence — 1,000 protoo-client sockets with 50 friends each, spread
 * over two API processes on one Redis: time from a client's connection to
 * `friend-online` arriving at each of its connected friends (p50, p99), memory per
 * connected socket; then search over 100,000 users (p50, p99).
 * Goals: p99 under 100 ms, under 50 KB per socket, search p99 under 20 ms.
 *
 * Runs in a database of its own (voice_bench, re-created each run) on the server of
 * DATABASE_URL, and a Redis namespace of its own on REDIS_URL.
 */
import { randomUUID } from 'node:crypto';
import { SocketClient } from '@voice/api/testing';
import jwt from 'jsonwebtoken';
import pg from 'pg';
import { DEFAULT_DATABASE_URL, recreateBenchDatabase, report, rssKb, startApi } from './harness.ts';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 1000);
const FRIENDS = Number(process.env.BENCH_FRIENDS ?? 50);
const SEARCH_USERS = Number(process.env.BENCH_SEARCH_USERS ?? 100_000);
const CONCURRENCY = 20;
const SEARCHES = 300;
const MEASURE_RATE = 20;

/** Delay from each client in `subjects` opening its socket to each friend hearing friend-online, sorted. */
function latenciesOf(
  clients: SocketClient[],
  openedAt: Map<string, number>,
  subjects: Set<string>,
): number[] {
  const out: number[] = [];
  for (const client of clients) {
    for (const r of client?.received ?? []) {
      const userId = r.data.userId as string;
      const opened = openedAt.get(userId);
      if (r.method === 'friend-online' && subjects.has(userId) && opened !== undefined)
        out.push(r.at - opened);
    }
  }
  return out.sort((a, b) => a - b);
}

const adminUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const benchDbUrl = (() => {
  const url = new URL(adminUrl);
  url.pathname = '/voice_bench';
  return url.toString();
})();
const secret = randomUUID() + randomUUID();
const env = {
  DATABASE_URL: benchDbUrl,
  REDIS_URL: redisUrl,
  REDIS_PREFIX: `bench:${randomUUID()}:`,
  JWT_SECRET: secret,
};

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? Number.NaN
    : (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number);
const round = (n: number) => Math.round(n * 100) / 100;

const SYLLABLES =
  'ka ri mo na lu te so vi da ne ro mi ta ze po ly fa gu shi ken ar el on us in ba dor mar vel tin'.split(
    ' ',
  );

/** A deterministic pseudo-random generator, so every run searches the same data. */
function prng(seed: number) {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4_294_967_296;
  };
}
const random = prng(42);
const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;

/** Varied, name-like words: 2 to 4 syllables. */
function word(): string {
  const n = 2 + Math.floor(random() * 3);
  return Array.from({ length: n }, () => pick(SYLLABLES)).join('');
}

/** Inserts `count` users in batches; returns their ids. */
const usernames: string[] = [];
const taken = new Set<string>();
const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);

async function seedUsers(db: pg.Client, count: number, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < count; start += 5000) {
    const rows: string[] = [];
    const values: unknown[] = [];
    for (let i = start; i < Math.min(count, start + 5000); i++) {
      const id = randomUUID();
      ids.push(id);
      let first: string;
      let username: string;
      do {
        first = word();
        username = `${first}${random() < 0.5 ? `_${word()}` : ''}${Math.floor(random() * 1000)}`;
      } while (taken.has(`${prefix}${username}`));
      taken.add(`${prefix}${username}`);
      usernames.push(username);
      values.push(
        id,
        `${prefix}${username}`,
        `${prefix}${username}@bench.test`,
        `${cap(first)} ${cap(word())}`,
      );
      const n = values.length;
      rows.push(`($${n - 3}, $${n - 2}, $${n - 1}, 'x', $${n}, 'en')`);
    }
    await db.query(
      `INSERT INTO users (id, username, email, password_hash, display_name, language) VALUES ${rows.join(',')}`,
      values,
    );
  }
  return ids;
}

/** Ring lattice: each client is friends with the FRIENDS/2 before and after it. */
async function seedFriendships(db: pg.Client, ids: string[]): Promise<void> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i < ids.length; i++) {
    for (let d = 1; d <= FRIENDS / 2; d++) {
      const a = ids[i] as string;
      const b = ids[(i + d) % ids.length] as string;
      pairs.push([a, b], [b, a]);
    }
  }
  for (let start = 0; start < pairs.length; start += 5000) {
    const chunk = pairs.slice(start, start + 5000);
    const values = chunk.flat();
    const rows = chunk.map((_, i) => `($${2 * i + 1}, $${2 * i + 2})`);
    await db.query(
      `INSERT INTO friendships (user_id, friend_id) VALUES ${rows.join(',')} ON CONFLICT DO NOTHING`,
      values,
    );
  }
}

async function issueTokens(db: pg.Client, ids: string[]): Promise<string[]> {
  const expires = new Date(Date.now() + 86_400_000);
  const sessions = ids.map((userId) => ({ id: randomUUID(), userId }));
  for (let start = 0; start < sessions.length; start += 5000) {
    const chunk = sessions.slice(start, start + 5000);
    const rows = chunk.map((_, i) => `($${3 * i + 1}, $${3 * i + 2}, $${3 * i + 3})`);
    await db.query(
      `INSERT INTO sessions (id, user_id, expires_at) VALUES ${rows.join(',')}`,
      chunk.flatMap((s) => [s.id, s.userId, expires]),
    );
  }
  return sessions.map((s) =>
    jwt.sign({}, secret, {
      algorithm: 'HS256',
      subject: s.userId,
      jwtid: s.id,
      audience: 'app',
      expiresIn: 86_400,
    }),
  );
}

await recreateBenchDatabase(adminUrl);
const node1 = await startApi(18_081, env);
const node2 = await startApi(18_082, env);
const clients: SocketClient[] = [];
try {
  const db = new pg.Client({ connectionString: benchDbUrl });
  await db.connect();
  console.log(
    `seeding ${CLIENTS} clients with ${FRIENDS} friends each, and ${SEARCH_USERS} users for search…`,
  );
  const ids = await seedUsers(db, CLIENTS, 'c');
  await seedFriendships(db, ids);
  const tokens = await issueTokens(db, ids);
  await seedUsers(db, Math.max(0, SEARCH_USERS - CLIENTS), '');
  await db.query('ANALYZE users');
  await db.end();

  // Search first, on a quiet service, from one of the clients through the REST API.
  const searchLatencies: number[] = [];
  // What people type: the first 2 to 6 letters of a name, or a piece from its middle.
  const terms = Array.from({ length: SEARCHES }, () => {
    const name = pick(usernames);
    const length = 2 + Math.floor(random() * 5);
    const from = random() < 0.6 ? 0 : Math.floor(random() * Math.max(1, name.length - length));
    return name.slice(from, from + length);
  });
  for (let i = 0; i < SEARCHES; i++) {
    const term = terms[i] as string;
    const started = performance.now();
    const res = await fetch(`${node1.url}/api/users/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[0]}` },
      body: JSON.stringify({ searchTerm: term }),
    });
    await res.json();
    if (!res.ok) throw new Error(`search failed: ${res.status}`);
    if (i >= 20) searchLatencies.push(performance.now() - started);
  }
  searchLatencies.sort((a, b) => a - b);

  const heapKb = async (api: typeof node1) => {
    const { memory } = await api.memory();
    return (memory.heapUsed + memory.external + memory.arrayBuffers) / 1024;
  };
  const baseline = { node1: await heapKb(node1), node2: await heapKb(node2) };
  const baselineRss = { node1: rssKb(node1.child.pid as number), node2: rssKb(node2.child.pid as number) };
  const openedAt = new Map<string, number>();

  // Phase 1, the crowd: 90% connect, CONCURRENCY at a time, alternating nodes.
  // Phase 2, the measure: the rest connect one by one at MEASURE_RATE per second,
  // into a service that already holds the crowd.
  const crowd = Math.floor(CLIENTS * 0.9);
  const connectOne = async (i: number) => {
    const node = i % 2 === 0 ? node1 : node2;
    const client = await SocketClient.connect(node.url, tokens[i] as string);
    openedAt.set(ids[i] as string, performance.now());
    clients[i] = client;
  };
  console.log(`connecting ${crowd} clients, ${CONCURRENCY} at a time…`);
  for (let start = 0; start < crowd; start += CONCURRENCY) {
    await Promise.all(
      Array.from({ length: Math.min(CONCURRENCY, crowd - start) }, (_, k) => connectOne(start + k)),
    );
  }
  await new Promise((r) => setTimeout(r, 2000));
  const crowdLatencies = latenciesOf(clients, openedAt, new Set(ids.slice(0, crowd)));
  console.log(`connecting ${CLIENTS - crowd} more at ${MEASURE_RATE}/s…`);
  const paced: Promise<void>[] = [];
  for (let i = crowd; i < CLIENTS; i++) {
    paced.push(connectOne(i));
    await new Promise((r) => setTimeout(r, 1000 / MEASURE_RATE));
  }
  await Promise.all(paced);
  await new Promise((r) => setTimeout(r, 2000));
  const latencies = latenciesOf(clients, openedAt, new Set(ids.slice(crowd)));

  const connected = { node1: await heapKb(node1), node2: await heapKb(node2) };
  const connectedRss = { node1: rssKb(node1.child.pid as number), node2: rssKb(node2.child.pid as number) };
  const perSocketKb = (connected.node1 - baseline.node1 + connected.node2 - baseline.node2) / CLIENTS;
  const perSocketRssKb =
    (connectedRss.node1 - baselineRss.node1 + connectedRss.node2 - baselineRss.node2) / CLIENTS;

  report('presence', {
    clients: CLIENTS,
    friendsEach: FRIENDS,
    apiProcesses: 2,
    friendOnline: {
      note: `${CLIENTS - crowd} clients connecting one by one (${MEASURE_RATE}/s) while ${crowd} are connected`,
      deliveries: latencies.length,
      p50Ms: round(percentile(latencies, 50)),
      p99Ms: round(percentile(latencies, 99)),
      maxMs: round(latencies.at(-1) ?? Number.NaN),
    },
    friendOnlineDuringConnectStorm: {
      note: `the first ${crowd} clients connecting ${CONCURRENCY} at a time`,
      deliveries: crowdLatencies.length,
      p50Ms: round(percentile(crowdLatencies, 50)),
      p99Ms: round(percentile(crowdLatencies, 99)),
    },
    memory: {
      note: 'JS heap + external + array buffers after a full GC, before and after the sockets connect',
      heapBeforeKb: { node1: round(baseline.node1), node2: round(baseline.node2) },
      heapConnectedKb: { node1: round(connected.node1), node2: round(connected.node2) },
      perSocketKb: round(perSocketKb),
      rssPerSocketKb: round(perSocketRssKb),
    },
    search: {
      users: SEARCH_USERS,
      queries: searchLatencies.length,
      p50Ms: round(percentile(searchLatencies, 50)),
      p99Ms: round(percentile(searchLatencies, 99)),
    },
    goals: { friendOnlineP99Ms: 100, perSocketKb: 50, searchP99Ms: 20 },
  });
} finally {
  for (const client of clients) client?.close();
  await node1.stop();
  await node2.stop();
}
