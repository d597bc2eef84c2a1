import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signUp, TestServer } from '../testing/TestServer.ts';

let server: TestServer;
const lines: string[] = [];
beforeAll(async () => {
  server = await TestServer.start({ LOG_LEVEL: 'debug' });
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
      lines.push(String(chunk));
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    });
  }
});
afterAll(async () => {
  vi.restoreAllMocks();
  await server?.close();
});

describe('logs', () => {
  it('never contain a session token, a password or a reset token', async () => {
    const account = await signUp(server);
    await server.request('GET', '/auth/me', { token: account.token });
    await server.request('POST', '/auth/login', {
      body: { username: account.username, password: account.password },
    });
    const since = server.smtp.messages.length;
    await server.request('POST', '/auth/forgot-password', { body: { email: account.email } });
    const mail = await server.smtp.waitFor(account.email, { since });
    const resetToken = mail.text?.match(/token=([\w-]+)/)?.[1] as string;
    await server.request('GET', `/auth/verify-reset-token/${resetToken}`);

    const log = lines.join('');
    // The access log did run, at debug level, for each request.
    expect(log).toMatch(/GET \/api\/auth\/me 200/);
    expect(log).toContain('/api/auth/verify-reset-token/[redacted]');
    for (const secret of [account.token, account.password, resetToken]) expect(log).not.toContain(secret);
  });
});
