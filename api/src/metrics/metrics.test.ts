/**
 * Prometheus metrics of a real API (PostgreSQL, Redis when REDIS_URL is set, a real SMTP
 * listener, a push service on loopback, an embedded media server with one mediasoup worker),
 * scraped the way Prometheus scrapes them while real requests, sockets, calls, mails, pushes
 * and room members move the numbers.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakePushService } from '../notifications/pushTesting.ts';
import { RawSocket } from '../testing/RawSocket.ts';
import { SocketClient } from '../testing/SocketClient.ts';
import { signUp, signUpFriends, TestServer } from '../testing/TestServer.ts';

const TOKEN = 'metrics-test-Qw8Er2Ty6Ui4Op0As5Df7Gh3Jk';
/** An Opus producer's RTP parameters, as a browser would send them. */
const OPUS = {
  codecs: [{ mimeType: 'audio/opus', payloadType: 100, clockRate: 48000, channels: 2 }],
  encodings: [{ ssrc: 4242 }],
};

let server: TestServer;
let push: FakePushService;
const open: Array<{ close(): void }> = [];

beforeAll(async () => {
  push = await FakePushService.start();
  server = await TestServer.start(
    { METRICS_PORT: '0', METRICS_HOST: '127.0.0.1', METRICS_TOKEN: TOKEN, PUSH_ALLOWED_HOSTS: push.host },
    {
      media: {
        authenticate: async (url) => {
          const token = url.searchParams.get('token') ?? '';
          return /^member-\d+$/.test(token) ? { peerId: token, roomId: 'metrics-room' } : null;
        },
      },
    },
  );
});
afterEach(() => {
  for (const client of open.splice(0)) client.close();
});
afterAll(async () => {
  await server?.close();
  await push?.close();
});

/** What Prometheus gets from METRICS_PORT. */
async function scrape(): Promise<string> {
  const port = server.server.metrics?.port;
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

/** The value of one series (`name{labels}` as exposed), 0 when it is not there yet. */
async function sample(series: string): Promise<number> {
  const line = (await scrape()).split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

const connect = async (token: string) => {
  const client = await SocketClient.connect(server.baseUrl, token, { origin: 'http://app.test' });
  open.push(client);
  return client;
};

describe('GET /metrics on METRICS_PORT', () => {
  it("has Node's process and event-loop metrics", async () => {
    const text = await scrape();
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(text).toContain(`\n${name} `);
    }
  });

  it('counts HTTP requests by route pattern and status, never by the path with its ids', async () => {
    const series = (route: string, status: number, method = 'GET') =>
      `voice_http_requests_total{method="${method}",route="${route}",status="${status}"}`;
    const before = await sample(series('/api/users/:id', 200));
    const a = await signUp(server);
    const b = await signUp(server);
    expect((await server.request('GET', `/users/${b.user.id}`, { token: a.token })).status).toBe(200);
    expect((await server.request('GET', `/users/${b.user.id}`)).status).toBe(401);
    expect((await server.request('GET', '/no/such/route')).status).toBe(404);

    expect(await sample(series('/api/users/:id', 200))).toBe(before + 1);
    expect(await sample(series('/api/users/:id', 401))).toBeGreaterThanOrEqual(1);
    expect(await sample(series('/api/auth/register', 201, 'POST'))).toBeGreaterThanOrEqual(2);
    expect(await sample(series('unmatched', 404))).toBeGreaterThanOrEqual(1);
    const text = await scrape();
    expect(text).toMatch(
      /^voice_http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/api\/users\/:id",status="200"\} \d+$/m,
    );
    expect(text).not.toContain(b.user.id);
    expect(text).not.toContain('/no/such/route');
  });

  it('follows app sockets and people online', async () => {
    const sockets = await sample('voice_app_sockets');
    const people = await sample('voice_people_online');
    const a = await signUp(server);
    const tab1 = await connect(a.token);
    await connect(a.token);
    expect(await sample('voice_app_sockets')).toBe(sockets + 2);
    expect(await sample('voice_people_online')).toBe(people + 1);
    tab1.close();
    await expect.poll(() => sample('voice_app_sockets')).toBe(sockets + 1);
    expect(await sample('voice_people_online')).toBe(people + 1);
  });

  it('counts ended calls by reason', async () => {
    const declined = await sample('voice_calls_ended_total{reason="declined"}');
    const hangup = await sample('voice_calls_ended_total{reason="hangup"}');
    const [a, b] = await signUpFriends(server);
    const sa = await connect(a.token);
    const sb = await connect(b.token);
    const call = async () => {
      const { callId } = (await sa.request('initiate-call', { targetUserId: b.user.id })) as {
        callId: string;
      };
      await sb.waitFor('incoming-call', (d) => d.callId === callId);
      return callId;
    };
    const first = await call();
    await sb.request('reject-call', { callId: first });
    await sa.waitFor('call-rejected', (d) => d.callId === first);
    const second = await call();
    await sb.request('accept-call', { callId: second });
    await sa.request('end-call', { callId: second });
    await sb.waitFor('call-ended', (d) => d.callId === second);

    expect(await sample('voice_calls_ended_total{reason="declined"}')).toBe(declined + 1);
    expect(await sample('voice_calls_ended_total{reason="hangup"}')).toBe(hangup + 1);
    // Every reason is there from the start.
    expect(await scrape()).toContain('voice_calls_ended_total{reason="timeout"}');
  });

  it('counts bus messages published and received by channel', async () => {
    const text = await scrape();
    // Presence and calls above went out to the sockets over the bus.
    expect(text).toMatch(/^voice_bus_messages_published_total\{channel="[\w:-]+",outcome="ok"\} [1-9]/m);
    expect(text).toMatch(/^voice_bus_messages_received_total\{channel="[\w:-]+"\} [1-9]/m);
    expect(text).toMatch(/^voice_bus_publish_duration_seconds_count\{channel="[\w:-]+"\} [1-9]/m);
  });

  it('counts mails sent', async () => {
    const sent = await sample('voice_mail_sends_total{outcome="sent"}');
    const a = await signUp(server);
    await server.request('POST', '/auth/forgot-password', { body: { email: a.email } });
    await server.smtp.waitFor(a.email);
    await expect.poll(() => sample('voice_mail_sends_total{outcome="sent"}')).toBe(sent + 1);
  });

  it('counts web pushes by outcome', async () => {
    const sent = await sample('voice_push_sends_total{outcome="sent"}');
    const gone = await sample('voice_push_sends_total{outcome="gone"}');
    const me = await signUp(server);
    const sub = push.subscription();
    const subscribe = { token: me.token, body: { subscription: sub.json, isSafari: false } };
    expect((await server.request('POST', '/notifications/subscribe', subscribe)).status).toBe(201);
    expect((await server.request('POST', '/notifications/test', { token: me.token })).status).toBe(202);
    await expect.poll(() => sample('voice_push_sends_total{outcome="sent"}')).toBe(sent + 1);
    push.answer(sub.path, 410);
    expect((await server.request('POST', '/notifications/test', { token: me.token })).status).toBe(202);
    await expect.poll(() => sample('voice_push_sends_total{outcome="gone"}')).toBe(gone + 1);
  });

  it("has the embedded media server's rooms, peers, producers, consumers and workers", async () => {
    const ws = server.baseUrl.replace('http', 'ws');
    const join = async (peer: string) => {
      const member = await RawSocket.connectUrl(`${ws}/rtc?token=${peer}`);
      open.push(member);
      const caps = await member.request('getRouterRtpCapabilities', {});
      const joined = await member.request('join', {
        displayName: peer,
        device: { name: 'test' },
        rtpCapabilities: caps.data,
      });
      expect(joined.ok, JSON.stringify(joined)).toBe(true);
      return member;
    };
    const speaker = await join('member-1');
    await join('member-2');
    const room = server.media?.rooms.get('metrics-room');
    if (!room) throw new Error('no room');
    await room.createPlainTransport('member-2', { producing: false, consuming: true });
    const sending = await room.createPlainTransport('member-1', { producing: true, consuming: false });
    const produced = await speaker.request('produce', {
      transportId: sending.id,
      kind: 'audio',
      rtpParameters: OPUS,
    });
    expect(produced.ok, JSON.stringify(produced)).toBe(true);

    expect(await sample('voice_media_rooms')).toBe(1);
    expect(await sample('voice_media_peers')).toBe(2);
    expect(await sample('voice_media_producers')).toBe(1);
    await expect.poll(() => sample('voice_media_consumers')).toBe(1);
    expect(await sample('voice_media_workers')).toBe(1);
    const text = await scrape();
    expect(text).toMatch(/^voice_media_worker_cpu_seconds_total\{worker_pid="\d+"\} [\d.e-]+$/m);
    expect(text).toMatch(/^voice_media_worker_max_rss_bytes\{worker_pid="\d+"\} [1-9]\d*$/m);
  });
});

describe('GET /metrics on the app port (METRICS_TOKEN)', () => {
  const get = (headers: Record<string, string> = {}) => fetch(`${server.baseUrl}/metrics`, { headers });

  it('answers 401 without the bearer token or with a wrong one, and keeps serving', async () => {
    const refused = 'voice_http_requests_total{method="GET",route="/metrics",status="401"}';
    const before = await sample(refused);
    for (const authorization of [
      undefined,
      '',
      TOKEN,
      `Basic ${TOKEN}`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN} ${TOKEN}`,
    ]) {
      const response = await get(authorization === undefined ? {} : { authorization });
      expect(response.status, String(authorization)).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(await response.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Unauthorized' } });
    }
    expect((await fetch(`${server.baseUrl}/metrics`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${server.baseUrl}/api/health`)).status).toBe(200);
    expect(await sample(refused)).toBe(before + 7);
  });

  it('serves the same registry to the bearer of the token', async () => {
    const response = await get({ authorization: `Bearer ${TOKEN}` });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toContain('voice_http_requests_total');
    expect(text).toContain('voice_media_workers 1');
  });
});

describe('without METRICS_PORT and METRICS_TOKEN', () => {
  it('has no metrics listener and answers /metrics with 404', async () => {
    const plain = await TestServer.start();
    try {
      expect(plain.server.metrics).toBe(null);
      const response = await fetch(`${plain.baseUrl}/metrics`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
    } finally {
      await plain.close();
    }
  });
});
