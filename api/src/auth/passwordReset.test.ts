import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, TestServer } from '../testing/TestServer.ts';

let server: TestServer;
beforeAll(async () => {
  server = await TestServer.start();
});
afterAll(() => server?.close());

/** Requests a reset for `email` and returns the token from the link in the received mail. */
async function resetTokenFor(email: string): Promise<string> {
  const since = server.smtp.messages.length;
  const res = await server.request('POST', '/auth/forgot-password', { body: { email } });
  expect(res.status).toBe(200);
  const mail = await server.smtp.waitFor(email, { since });
  const link = mail.text?.match(/http:\/\/app\.test\/reset-password\?token=([\w-]+)/);
  expect(link, mail.text).not.toBeNull();
  expect(mail.html).toContain(link?.[0]);
  return link?.[1] as string;
}

const login = (username: string, password: string) =>
  server.request('POST', '/auth/login', { body: { username, password } });

describe('password reset', () => {
  it('mails a link whose token verifies, sets the new password, and refuses the old one', async () => {
    const account = await signUp(server);
    const token = await resetTokenFor(account.email.toUpperCase());
    expect(token).toHaveLength(43);

    const verify = await server.request('GET', `/auth/verify-reset-token/${token}`);
    expect(verify.status).toBe(200);
    expect(verify.body).toEqual({ valid: true });

    const reset = await server.request('POST', '/auth/reset-password', {
      body: { token, password: 'brand-new-1', confirmPassword: 'brand-new-1' },
    });
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ ok: true });

    expect((await login(account.username, account.password)).status).toBe(401);
    expect((await login(account.username, 'brand-new-1')).status).toBe(200);
  });

  it('stores only a hash of the token', async () => {
    const account = await signUp(server);
    const token = await resetTokenFor(account.email);
    const rows = await server.services.db('password_resets').where({ user_id: account.user.id });
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows[0].token_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('answers the same for an unknown email and sends nothing', async () => {
    const since = server.smtp.messages.length;
    const res = await server.request('POST', '/auth/forgot-password', {
      body: { email: 'nobody@example.test' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    await new Promise((r) => setTimeout(r, 300));
    expect(server.smtp.messages.slice(since).some((m) => JSON.stringify(m.to).includes('nobody@'))).toBe(
      false,
    );
  });

  it('refuses an invalid email with 400 VALIDATION', async () => {
    for (const body of [{ email: 'nope' }, {}]) {
      const res = await server.request('POST', '/auth/forgot-password', { body });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'VALIDATION', field: 'email' });
    }
  });

  it('ends every session issued before the reset', async () => {
    const account = await signUp(server);
    const second = (await login(account.username, account.password)).body.token;
    const token = await resetTokenFor(account.email);
    await server.request('POST', '/auth/reset-password', {
      body: { token, password: 'another-1', confirmPassword: 'another-1' },
    });
    for (const t of [account.token, second])
      expect((await server.request('GET', '/auth/me', { token: t })).status).toBe(401);
  });

  it('refuses a reused token, and every token issued before the reset', async () => {
    const account = await signUp(server);
    const older = await resetTokenFor(account.email);
    const token = await resetTokenFor(account.email);
    const body = { token, password: 'first-new-1', confirmPassword: 'first-new-1' };
    expect((await server.request('POST', '/auth/reset-password', { body })).status).toBe(200);
    for (const t of [token, older]) {
      const again = await server.request('POST', '/auth/reset-password', {
        body: { token: t, password: 'second-new-1', confirmPassword: 'second-new-1' },
      });
      expect(again.status).toBe(400);
      expect(again.body.error).toMatchObject({
        code: 'RESET_TOKEN_INVALID',
        message: 'This password reset link is invalid or has expired. Please request a new one.',
      });
      expect((await server.request('GET', `/auth/verify-reset-token/${t}`)).status).toBe(400);
    }
    expect((await login(account.username, 'first-new-1')).status).toBe(200);
  });

  it('refuses an expired token', async () => {
    const account = await signUp(server);
    const token = await resetTokenFor(account.email);
    await server.services
      .db('password_resets')
      .where({ user_id: account.user.id })
      .update({ expires_at: new Date(Date.now() - 1000) });
    expect((await server.request('GET', `/auth/verify-reset-token/${token}`)).body.error.code).toBe(
      'RESET_TOKEN_INVALID',
    );
    const res = await server.request('POST', '/auth/reset-password', {
      body: { token, password: 'newpass-1', confirmPassword: 'newpass-1' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('RESET_TOKEN_INVALID');
    expect((await login(account.username, account.password)).status).toBe(200);
  });

  it.each(['made-up-token', 'A'.repeat(43), '%00', 'x'.repeat(300)])(
    'refuses the made-up token %j',
    async (token) => {
      const verify = await server.request('GET', `/auth/verify-reset-token/${encodeURIComponent(token)}`);
      expect(verify.status).toBe(400);
      expect(verify.body.error.code).toBe('RESET_TOKEN_INVALID');
    },
  );

  it('refuses a made-up token on reset', async () => {
    const res = await server.request('POST', '/auth/reset-password', {
      body: { token: 'B'.repeat(43), password: 'whatever1', confirmPassword: 'whatever1' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('RESET_TOKEN_INVALID');
  });

  it('refuses differing passwords with 400 PASSWORDS_DO_NOT_MATCH and keeps the token usable', async () => {
    const account = await signUp(server);
    const token = await resetTokenFor(account.email);
    const res = await server.request('POST', '/auth/reset-password', {
      body: { token, password: 'newpass-1', confirmPassword: 'newpass-2' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: 'PASSWORDS_DO_NOT_MATCH',
      message: 'Passwords do not match',
      field: 'confirmPassword',
    });
    expect((await server.request('GET', `/auth/verify-reset-token/${token}`)).status).toBe(200);
    expect((await login(account.username, account.password)).status).toBe(200);
  });

  it('refuses a 5-character new password with 400 VALIDATION', async () => {
    const account = await signUp(server);
    const token = await resetTokenFor(account.email);
    const res = await server.request('POST', '/auth/reset-password', {
      body: { token, password: '12345', confirmPassword: '12345' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION', field: 'password' });
    expect((await server.request('GET', `/auth/verify-reset-token/${token}`)).status).toBe(200);
  });

  it('lets only one of two simultaneous resets with the same token through', async () => {
    const account = await signUp(server);
    const token = await resetTokenFor(account.email);
    const results = await Promise.all(
      ['racer-one-1', 'racer-two-2'].map((password) =>
        server.request('POST', '/auth/reset-password', {
          body: { token, password, confirmPassword: password },
        }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
  });

  it('writes the mail in the language of the profile', async () => {
    const account = await signUp(server, { language: 'de', displayName: 'Jürgen' });
    const since = server.smtp.messages.length;
    await server.request('POST', '/auth/forgot-password', { body: { email: account.email } });
    const mail = await server.smtp.waitFor(account.email, { since });
    expect(mail.subject).toBe('Setze dein Voice-Passwort zurück');
    // By username: the display name is free text (see mail/resetMail.test.ts).
    expect(mail.text).toContain(`Hallo ${account.username},`);
    expect(mail.html).toContain('Passwort zurücksetzen');
  });

  it('falls back to the default language, ru, for a sign-up without one', async () => {
    const account = await signUp(server);
    const since = server.smtp.messages.length;
    await server.request('POST', '/auth/forgot-password', { body: { email: account.email } });
    const mail = await server.smtp.waitFor(account.email, { since });
    expect(mail.subject).toBe('Сброс пароля Voice');
  });
});
