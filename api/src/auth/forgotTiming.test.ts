import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, TestServer } from '../testing/TestServer.ts';

// POST /auth/forgot-password must not tell whether an email has an account, by its answer
// or by its time: the token's row and the mail are made after the answer, for both alike.
let server: TestServer;
beforeAll(async () => {
  server = await TestServer.start();
});
afterAll(() => server?.close());

const ROUNDS = 40;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

async function timed(email: string): Promise<number> {
  const started = performance.now();
  const res = await server.request('POST', '/auth/forgot-password', { body: { email } });
  const ms = performance.now() - started;
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ ok: true });
  return ms;
}

describe('POST /auth/forgot-password', () => {
  it('answers a registered and an unknown email in the same time, and the mail still arrives', async () => {
    const account = await signUp(server);
    const unknown = `nobody_${account.username}@example.test`;
    // Warm both paths (first queries, connections) before measuring.
    await timed(account.email);
    await timed(unknown);

    // Back to back in pairs, alternating which goes first, so a slow moment of this shared
    // machine hits both alike; the work left after each answer is let finish before the next
    // request, so only the answer itself is timed.
    const measure = async (email: string) => {
      const ms = await timed(email);
      await server.services.auth.drain();
      return ms;
    };
    const differences: number[] = [];
    const unknownTimes: number[] = [];
    for (let i = 0; i < ROUNDS; i += 1) {
      let knownMs: number;
      let unknownMs: number;
      if (i % 2) {
        knownMs = await measure(account.email);
        unknownMs = await measure(unknown);
      } else {
        unknownMs = await measure(unknown);
        knownMs = await measure(account.email);
      }
      differences.push(knownMs - unknownMs);
      unknownTimes.push(unknownMs);
    }
    const difference = median(differences);
    const typical = median(unknownTimes);
    // Before the fix a registered email cost an insert more (2 ms and up, 13 ms on a loaded
    // machine); now both do the same work before answering. The margin absorbs the noise.
    expect(
      Math.abs(difference),
      `median difference ${difference.toFixed(2)} ms, typical answer ${typical.toFixed(2)} ms`,
    ).toBeLessThan(Math.max(1, 0.2 * typical));

    // Every request for the registered email produced its mail, and the unknown one none.
    const deadline = Date.now() + 20_000;
    const count = (to: string) =>
      server.smtp.messages.filter((m) => JSON.stringify(m.to).toLowerCase().includes(to.toLowerCase()))
        .length;
    while (count(account.email) < ROUNDS + 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(count(account.email)).toBe(ROUNDS + 1);
    expect(count(unknown)).toBe(0);
    const rows = await server.services.db('password_resets').where({ user_id: account.user.id });
    expect(rows).toHaveLength(ROUNDS + 1);
  });
});
