/**
 * npm run bench:call — one-to-one calls between two real Chromium browsers on one API, each
 * fake microphone playing a speech recording: 20 calls one after another, and for each the
 * time from the callee's Accept click to the first audio packet received on each side
 * (p50, p95). Once peer to peer, once forced through a real coturn relay. Then, with the API
 * alone, memory per ringing call: N pairs of app-socket clients, every caller ringing.
 * Goals: p95 under 300 ms direct, under 500 ms relayed.
 *
 * Everything on 127.0.0.1. Runs in the database voice_bench (re-created each run) on the
 * server of DATABASE_URL and a Redis namespace of its own on REDIS_URL. The API serves the
 * web app from WEB_DIST (default web/dist, built first if missing). BENCH_CALLS sets the
 * number of calls per path, BENCH_RINGING the number of ringing calls, BENCH_TURN_USER_QUOTA
 * a coturn user-quota other than the shipped coturn/turnserver.conf's.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Page } from '@playwright/test';
import { Coturn, SocketClient } from '@voice/api/testing';
import {
  audioStats,
  befriend,
  CallBrowser,
  createPerson,
  openDashboardAs,
  PEER_CONNECTIONS,
  type Person,
} from '@voice/browser-bots';
import jwt from 'jsonwebtoken';
import pg from 'pg';
import {
  benchSetting,
  ensureWebBuilt,
  KEEP_NAMES_SHIM,
  recreateBenchDatabase,
  report,
  rssKb,
  startApi,
} from './harness.ts';

const CALLS = Number(process.env.BENCH_CALLS ?? 20);
const RINGING = Number(process.env.BENCH_RINGING ?? 200);
/** How many callers send `initiate-call` at once. */
const RING_BATCH = 50;
/** Ringing calls made and ended before the memory is measured: JIT and first-use allocations. */
const WARM_UP_RINGING = 10;
/** How often each page reads its inbound audio stats while waiting for the first packet. */
const SAMPLE_MS = 5;
/** Any single wait: a step that takes longer has failed. */
const STEP_TIMEOUT_MS = 15_000;
const GOALS = { directP95Ms: 300, relayP95Ms: 500 };
const TURN_USER_QUOTA = process.env.BENCH_TURN_USER_QUOTA;

const { adminUrl, benchDbUrl, jwtSecret, webDist, env } = benchSetting();

/** Nearest-rank percentile of an ascending list. */
const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? Number.NaN
    : (sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] as number);
const round = (n: number) => Math.round(n * 10) / 10;

// --- Calls between two browsers -------------------------------------------------------------

/** Where a page keeps its log of WebRTC and microphone steps (see logSteps). */
const STEPS = '__benchSteps';

/**
 * Runs in each page before its scripts: notes Date.now() of each step a call goes through —
 * microphone opened, descriptions set, ICE and DTLS connected — so the time from Accept to the
 * first packet can be split into stages. Bench-only instrumentation; the app knows nothing of it.
 */
function logSteps(key: string): void {
  const steps: [number, string][] = [];
  Object.defineProperty(window, key, { value: steps });
  const note = (label: string) => steps.push([Date.now(), label]);
  const media = navigator.mediaDevices;
  const getUserMedia = media.getUserMedia.bind(media);
  media.getUserMedia = async (constraints) => {
    note('getUserMedia called');
    const stream = await getUserMedia(constraints);
    note('getUserMedia resolved');
    return stream;
  };
  const proto = RTCPeerConnection.prototype;
  for (const name of [
    'createOffer',
    'createAnswer',
    'setLocalDescription',
    'setRemoteDescription',
  ] as const) {
    const original = proto[name] as (...args: unknown[]) => Promise<unknown>;
    Object.defineProperty(proto, name, {
      value: async function (this: RTCPeerConnection, ...args: unknown[]) {
        const result = await original.apply(this, args);
        const type = (args[0] as { type?: string } | undefined)?.type;
        note(type ? `${name}(${type})` : name);
        return result;
      },
    });
  }
  // The app socket's call messages, both ways (protoo frames: requests and notifications carry `method`).
  const CALL_METHODS =
    /^(initiate-call|call-initiated|incoming-call|accept-call|call-accepted|webrtc-offer|webrtc-answer)$/;
  const methodOf = (data: unknown) => {
    try {
      const method = typeof data === 'string' ? (JSON.parse(data) as { method?: unknown }).method : null;
      return typeof method === 'string' && CALL_METHODS.test(method) ? method : null;
    } catch {
      return null;
    }
  };
  const NativeSocket = window.WebSocket;
  window.WebSocket = class extends NativeSocket {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      this.addEventListener('message', ({ data }) => {
        const method = methodOf(data);
        if (method) note(`socket ← ${method}`);
      });
    }

    override send(data: string | ArrayBufferLike | Blob | ArrayBufferView): void {
      const method = methodOf(data);
      if (method) note(`socket → ${method}`);
      super.send(data);
    }
  };
  const Native = window.RTCPeerConnection;
  window.RTCPeerConnection = class extends Native {
    constructor(configuration?: RTCConfiguration) {
      super(configuration);
      note('RTCPeerConnection');
      this.addEventListener('iceconnectionstatechange', () => note(`ice ${this.iceConnectionState}`));
      this.addEventListener('connectionstatechange', () => note(`connection ${this.connectionState}`));
    }
  };
}

/** Where a page keeps its first-audio probe (see watchFirstAudio). */
const PROBE = '__benchFirstAudio';

/** What a page's probe saw: when (Date.now()) the first audio packet showed in getStats. */
interface Probe {
  firstPacketAt: number | null;
}

/**
 * In the page: from now on, read the inbound audio stats of the newest peer connection
 * created after this moment every `sampleMs`, and note Date.now() when packetsReceived is
 * first above 0. Started before the call is placed, so the caller's connection is caught
 * whenever the app creates it.
 */
function watchFirstAudio([connectionsKey, probeKey, sampleMs, timeoutMs]: [string, string, number, number]) {
  const page = window as unknown as Record<string, unknown>;
  const connections = page[connectionsKey] as RTCPeerConnection[];
  const from = connections.length;
  const probe: Probe = { firstPacketAt: null };
  page[probeKey] = probe;
  const until = Date.now() + timeoutMs;
  void (async () => {
    while (Date.now() < until) {
      const pc = connections.length > from ? connections.at(-1) : undefined;
      if (pc) {
        const stats = await pc.getStats();
        for (const s of stats.values() as IterableIterator<Record<string, unknown>>) {
          if (s.type === 'inbound-rtp' && s.kind === 'audio' && Number(s.packetsReceived) > 0) {
            probe.firstPacketAt = Date.now();
            return;
          }
        }
      }
      await new Promise((resolve) => setTimeout(resolve, sampleMs));
    }
  })();
}

function friendRow(page: Page, name: string) {
  return page.getByRole('list', { name: 'Friends' }).getByRole('listitem').filter({ hasText: name });
}

const callRegion = (page: Page, name: string) => page.getByRole('region', { name: `Call with ${name}` });

/** Waits until `page` shows `friend` online and no call. */
async function idle(page: Page, own: Person, friend: Person): Promise<void> {
  await callRegion(page, friend.displayName).waitFor({ state: 'hidden', timeout: STEP_TIMEOUT_MS });
  await friendRow(page, friend.displayName)
    .filter({ hasText: 'Online' })
    .waitFor({ timeout: STEP_TIMEOUT_MS })
    .catch((error: unknown) => {
      throw new Error(`${own.displayName} does not see ${friend.displayName} online and idle`, {
        cause: error,
      });
    });
}

/**
 * One call: accept click → first audio packet on each side and the path it took, or why it
 * never carried audio.
 */
type CallSample =
  | {
      callerMs: number;
      calleeMs: number;
      /** Each page's steps after Accept, in ms from the click. */
      steps: { caller: string[]; callee: string[] };
      /** Candidate types of the selected pair, caller's then callee's view (local/remote). */
      path: string[];
    }
  | { failed: string };

/**
 * A calls B, B accepts, both wait for the other's audio, A leaves; both are idle again. A call
 * with no audio on a side within STEP_TIMEOUT_MS is left the same way and counted as failed.
 */
async function measureCall(a: Page, b: Page, alice: Person, bob: Person): Promise<CallSample> {
  const watch = [PEER_CONNECTIONS, PROBE, SAMPLE_MS, 2 * STEP_TIMEOUT_MS] as [string, string, number, number];
  await a.evaluate(watchFirstAudio, watch);
  await b.evaluate(watchFirstAudio, watch);

  await friendRow(a, bob.displayName)
    .getByRole('button', { name: `Call ${bob.displayName}` })
    .click();
  const accept = b.getByRole('alertdialog').getByRole('button', { name: 'Accept' });
  await accept.waitFor({ timeout: STEP_TIMEOUT_MS });
  // The moment and the click in one task of B's page: no round trip between them.
  const acceptedAt = await accept.evaluate((button) => {
    const at = Date.now();
    (button as HTMLElement).click();
    return at;
  });

  const firstAudio = async (page: Page, side: string): Promise<number | string> => {
    try {
      const handle = await page.waitForFunction(
        (key) => (window as unknown as Record<string, Probe>)[key]?.firstPacketAt ?? null,
        PROBE,
        { timeout: STEP_TIMEOUT_MS, polling: 50 },
      );
      return (await handle.jsonValue()) as number;
    } catch {
      const stats = await audioStats(page);
      return `no audio at the ${side} within ${STEP_TIMEOUT_MS} ms (connection ${stats.connectionState})`;
    }
  };
  const [callerAt, calleeAt] = await Promise.all([firstAudio(a, 'caller'), firstAudio(b, 'callee')]);
  const [callerStats, calleeStats] = await Promise.all([audioStats(a), audioStats(b)]);
  const stepsSince = (page: Page) =>
    page.evaluate(
      ([key, from]) =>
        ((window as unknown as Record<string, [number, string][]>)[key] ?? [])
          .filter(([at]) => at >= from)
          .map(([at, label]) => `${at - from} ${label}`),
      [STEPS, acceptedAt] as const,
    );
  const steps = { caller: await stepsSince(a), callee: await stepsSince(b) };

  const leave = callRegion(a, bob.displayName).getByRole('button', { name: 'Leave call' });
  if (await leave.isVisible()) await leave.click();
  await idle(a, alice, bob);
  await idle(b, bob, alice);
  if (typeof callerAt === 'string' || typeof calleeAt === 'string') {
    return { failed: [callerAt, calleeAt].filter((x) => typeof x === 'string').join('; ') };
  }
  return {
    callerMs: callerAt - acceptedAt,
    calleeMs: calleeAt - acceptedAt,
    steps: {
      caller: [...steps.caller, `${callerAt - acceptedAt} first packet`],
      callee: [...steps.callee, `${calleeAt - acceptedAt} first packet`],
    },
    path: [callerStats, calleeStats].map((s) => `${s.localCandidateType}/${s.remoteCandidateType}`),
  };
}

const summary = (values: number[]) => {
  const sorted = [...values].sort((x, y) => x - y);
  return {
    p50Ms: round(percentile(sorted, 50)),
    p95Ms: round(percentile(sorted, 95)),
    maxMs: round(sorted.at(-1) ?? Number.NaN),
  };
};

/** The median time of each step (by label) over the calls, caller's and callee's. */
function medianSteps(calls: { caller: string[]; callee: string[] }[]) {
  const side = (lists: string[][]) => {
    const byLabel = new Map<string, number[]>();
    for (const list of lists) {
      for (const line of list) {
        const space = line.indexOf(' ');
        const label = line.slice(space + 1);
        const times = byLabel.get(label) ?? [];
        times.push(Number(line.slice(0, space)));
        byLabel.set(label, times);
      }
    }
    return [...byLabel]
      .map(([label, times]) => ({
        label,
        p50Ms: percentile(
          [...times].sort((x, y) => x - y),
          50,
        ),
        n: times.length,
      }))
      .sort((x, y) => x.p50Ms - y.p50Ms)
      .map(({ label, p50Ms, n }) => `${p50Ms} ms ${label}${n === calls.length ? '' : ` (${n}×)`}`);
  };
  return { caller: side(calls.map((c) => c.caller)), callee: side(calls.map((c) => c.callee)) };
}

/** CALLS calls between two fresh friends on an API started with `apiEnv`. */
async function measureCalls(port: number, apiEnv: Record<string, string>) {
  const api = await startApi(port, { ...env, PUBLIC_URL: `http://127.0.0.1:${port}`, ...apiEnv });
  const browsers: CallBrowser[] = [];
  try {
    const alice = await createPerson(api.url, 'Alice');
    const bob = await createPerson(api.url, 'Bob');
    await befriend(api.url, alice, bob);
    const a = await CallBrowser.launch({ speaker: 'alice', baseURL: api.url });
    browsers.push(a);
    const b = await CallBrowser.launch({ speaker: 'bob', baseURL: api.url });
    browsers.push(b);
    for (const { context } of browsers) {
      await context.addInitScript({ content: KEEP_NAMES_SHIM });
      await context.addInitScript(logSteps, STEPS);
    }
    for (const [page, person] of [
      [b.page, bob],
      [a.page, alice],
    ] as const) {
      await openDashboardAs(page, person);
      await page.getByRole('tab', { name: 'Friends' }).click();
    }
    await idle(a.page, alice, bob);

    const samples: CallSample[] = [];
    for (let i = 0; i < CALLS; i++) {
      const sample = await measureCall(a.page, b.page, alice, bob);
      samples.push(sample);
      process.stdout.write('failed' in sample ? `\ncall ${i + 1}: ${sample.failed}\n` : '.');
    }
    process.stdout.write('\n');
    const connected = samples.filter((s): s is Exclude<CallSample, { failed: string }> => !('failed' in s));
    const caller = connected.map((s) => s.callerMs);
    const callee = connected.map((s) => s.calleeMs);
    return {
      calls: samples.length,
      failed: samples.filter((s) => 'failed' in s).map((s) => s.failed),
      caller: summary(caller),
      callee: summary(callee),
      combined: summary([...caller, ...callee]),
      /** Each step's median time after Accept, per side. */
      steps: medianSteps(connected.map((s) => s.steps)),
      /** Selected candidate pair of each connected call, caller's and callee's view. */
      paths: connected.map((s) => s.path.join(' ')),
    };
  } finally {
    for (const browser of browsers) await browser.close();
    await api.stop();
  }
}

// --- Memory per ringing call ----------------------------------------------------------------

/** `count` caller/callee pairs of friends with a session each, straight into the database. */
async function seedPairs(count: number): Promise<{ ids: string[]; tokens: string[] }> {
  const db = new pg.Client({ connectionString: benchDbUrl });
  await db.connect();
  try {
    const ids = Array.from({ length: 2 * count }, () => randomUUID());
    const run = `r${Date.now().toString(36)}`;
    const users = ids.map((id, i) => [id, `${run}_${i}`, `${run}_${i}@bench.test`, 'x', `Ringer ${i}`, 'en']);
    const friendships = Array.from({ length: count }, (_, i) => [
      [ids[i], ids[count + i]],
      [ids[count + i], ids[i]],
    ]).flat();
    const expires = new Date(Date.now() + 86_400_000);
    const sessions = ids.map((userId) => [randomUUID(), userId, expires]);
    const insert = async (table: string, columns: string[], rows: unknown[][]) => {
      for (let start = 0; start < rows.length; start += 2000) {
        const chunk = rows.slice(start, start + 2000);
        const placeholders = chunk.map(
          (_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(', ')})`,
        );
        await db.query(
          `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${placeholders.join(', ')}`,
          chunk.flat(),
        );
      }
    };
    await insert('users', ['id', 'username', 'email', 'password_hash', 'display_name', 'language'], users);
    await insert('friendships', ['user_id', 'friend_id'], friendships);
    await insert('sessions', ['id', 'user_id', 'expires_at'], sessions);
    const tokens = sessions.map(([id, userId]) =>
      jwt.sign({}, jwtSecret, {
        algorithm: 'HS256',
        subject: userId as string,
        jwtid: id as string,
        audience: 'app',
        expiresIn: 86_400,
      }),
    );
    return { ids, tokens };
  } finally {
    await db.end();
  }
}

/**
 * Every caller rings its callee, RING_BATCH at a time; resolves with the call ids once every
 * callee heard `incoming-call`.
 */
async function ringAll(callers: SocketClient[], callees: SocketClient[], calleeIds: string[]) {
  const callIds: string[] = [];
  for (let start = 0; start < callers.length; start += RING_BATCH) {
    const batch = callers.slice(start, start + RING_BATCH);
    const replies = await Promise.all(
      batch.map((caller, k) => caller.request('initiate-call', { targetUserId: calleeIds[start + k] })),
    );
    callIds.push(...replies.map((reply) => (reply as { callId: string }).callId));
  }
  await Promise.all(
    callees.map((callee, i) =>
      callee.waitFor('incoming-call', (d) => d.callId === callIds[i], { timeoutMs: STEP_TIMEOUT_MS }),
    ),
  );
  return callIds;
}

async function measureRinging(port: number) {
  const pairs = WARM_UP_RINGING + RINGING;
  // Long enough that no call stops ringing before it is measured (the API's maximum).
  const api = await startApi(port, { ...env, CALL_RING_TIMEOUT_MS: String(10 * 60_000) });
  const clients: SocketClient[] = [];
  try {
    const { ids, tokens } = await seedPairs(pairs);
    for (let start = 0; start < tokens.length; start += 20) {
      clients.push(
        ...(await Promise.all(tokens.slice(start, start + 20).map((t) => SocketClient.connect(api.url, t)))),
      );
    }
    const callers = clients.slice(0, pairs);
    const callees = clients.slice(pairs);
    const calleeIds = ids.slice(pairs);

    const warm = await ringAll(
      callers.slice(0, WARM_UP_RINGING),
      callees.slice(0, WARM_UP_RINGING),
      calleeIds.slice(0, WARM_UP_RINGING),
    );
    await Promise.all(warm.map((callId, i) => callers[i]?.request('end-call', { callId })));
    await new Promise((r) => setTimeout(r, 500));

    const pid = api.child.pid as number;
    const before = { heap: (await api.memory()).memory.heapUsed, rss: rssKb(pid) };
    const started = performance.now();
    const callIds = await ringAll(
      callers.slice(WARM_UP_RINGING),
      callees.slice(WARM_UP_RINGING),
      calleeIds.slice(WARM_UP_RINGING),
    );
    const ringMs = performance.now() - started;
    const after = { heap: (await api.memory()).memory.heapUsed, rss: rssKb(pid) };
    const measured = callers.slice(WARM_UP_RINGING);
    if (measured.some((c) => c.received.some((r) => r.method === 'call-ended'))) {
      throw new Error('a call stopped ringing before it was measured');
    }

    await Promise.all(callIds.map((callId, i) => measured[i]?.request('end-call', { callId })));
    return {
      ringingCalls: RINGING,
      allRungInMs: Math.round(ringMs),
      heapUsedBeforeKb: Math.round(before.heap / 1024),
      heapUsedRingingKb: Math.round(after.heap / 1024),
      heapPerCallKb: round((after.heap - before.heap) / 1024 / RINGING),
      rssPerCallKb: round((after.rss - before.rss) / RINGING),
    };
  } finally {
    for (const client of clients) client.close();
    await api.stop();
  }
}

// --- Run ------------------------------------------------------------------------------------

ensureWebBuilt(webDist);
await recreateBenchDatabase(adminUrl);

console.log(`${CALLS} direct calls…`);
const direct = await measureCalls(18_083, {});

console.log(`${CALLS} calls through a coturn relay (TURN_FORCE_RELAY)…`);
const turnSecret = randomBytes(24).toString('base64url');
const coturn = await Coturn.start({
  secret: turnSecret,
  loopbackPeers: true,
  extraConfig: TURN_USER_QUOTA ? [`user-quota=${TURN_USER_QUOTA}`] : [],
});
let relay: Awaited<ReturnType<typeof measureCalls>>;
try {
  relay = await measureCalls(18_084, {
    TURN_SECRET: turnSecret,
    TURN_URLS: coturn.turnUrls,
    TURN_FORCE_RELAY: 'true',
  });
} finally {
  await coturn.stop();
}
const notRelayed = relay.paths.filter((p) => p !== 'relay/relay relay/relay');
if (notRelayed.length > 0) throw new Error(`relay-only calls took other paths: ${notRelayed.join(', ')}`);

console.log(`${RINGING} ringing calls…`);
const ringing = await measureRinging(18_085);

report('call', {
  note: `accept click → first inbound audio packet (getStats read every ${SAMPLE_MS} ms in each page), ${CALLS} calls one after another; p95 is nearest-rank over the calls that connected`,
  direct: { ...direct, paths: [...new Set(direct.paths)] },
  relay: {
    ...relay,
    paths: [...new Set(relay.paths)],
    turnUserQuota: TURN_USER_QUOTA ?? 'as shipped (coturn/turnserver.conf)',
  },
  ringing: {
    note: 'API heapUsed after a full GC and RSS, before and with every call ringing (calls kept in Redis)',
    ...ringing,
  },
  goals: GOALS,
  met: {
    direct: direct.failed.length === 0 && direct.combined.p95Ms < GOALS.directP95Ms,
    relay: relay.failed.length === 0 && relay.combined.p95Ms < GOALS.relayP95Ms,
  },
});
