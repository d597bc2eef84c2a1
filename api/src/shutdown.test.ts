/**
 * SIGTERM on a real API process: app sockets close with 1001 (going away, so browsers
 * reconnect at once), a request in flight still gets its answer, the process exits 0.
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import websocket from 'websocket';
import { ChildApi } from './testing/ChildApi.ts';
import { ticketedSocketUrl } from './testing/socketTicket.ts';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

let api: ChildApi | null = null;
afterEach(async () => {
  await api?.stop();
  api = null;
});

async function signUp(baseUrl: string): Promise<string> {
  const username = `sd${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const res = await fetch(`${baseUrl}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      username,
      email: `${username}@example.test`,
      password: 'secret123',
      acceptTerms: true,
    }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { token: string }).token;
}

/** An app socket; resolves once open, with a promise of its close code (wrapped: a returned promise would be awaited too). */
async function openSocket(baseUrl: string, token: string): Promise<{ closed: Promise<number> }> {
  const socket = new websocket.w3cwebsocket(await ticketedSocketUrl(baseUrl, token), 'protoo');
  const closed = new Promise<number>((resolve) => {
    socket.onclose = (event) => resolve(event.code);
  });
  await new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve();
    socket.onerror = () => reject(new Error('socket did not open'));
  });
  return { closed };
}

/** The processes `pid` started (the embedded media server's mediasoup workers). */
function childPids(pid: number): number[] {
  return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
    .split('\n')
    .map((line) => Number(line.trim()))
    .filter((n) => n > 0);
}

/** Running, not a zombie waiting for a parent to reap it (the exited API cannot). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

describe('SIGTERM', { timeout: 60_000 }, () => {
  it('closes app sockets with 1001, answers the request in flight, and exits 0', async () => {
    api = await ChildApi.start({ DATABASE_URL });
    const token = await signUp(api.baseUrl);
    const sockets = await Promise.all([openSocket(api.baseUrl, token), openSocket(api.baseUrl, token)]);

    // A request whose body is still arriving when the signal comes.
    const body = JSON.stringify({ login: 'nobody@example.test', password: 'wrong-password' });
    const url = new URL('/api/auth/login', api.baseUrl);
    const inFlight = request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    const answer = once(inFlight, 'response').then(async ([res]) => {
      let text = '';
      for await (const chunk of res) text += chunk;
      return { status: res.statusCode as number, text };
    });
    inFlight.write(body.slice(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 200));

    const workers = childPids(api.child.pid as number);
    expect(workers.length).toBeGreaterThan(0);
    const exited = once(api.child, 'exit');
    api.child.kill('SIGTERM');
    expect(await Promise.all(sockets.map((socket) => socket.closed))).toEqual([1001, 1001]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    inFlight.end(body.slice(10));

    const { status, text } = await answer;
    // Refused as any wrong login is: the point is that it was answered, not cut.
    expect(status, text).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThan(500);
    expect(JSON.parse(text)).toHaveProperty('error');
    const [code] = await exited;
    expect(code).toBe(0);
    // The mediasoup workers went with it (a worker ends a moment after it is told to).
    await expect.poll(() => workers.filter(alive), { timeout: 3000 }).toEqual([]);
  });
});
