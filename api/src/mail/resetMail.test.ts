import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, TestServer } from '../testing/TestServer.ts';
import { passwordResetMail } from './templates.ts';

// The reset mail goes to whoever owns the email address, with text another person may
// have chosen: nothing in it may read as the service's own words or links.
let server: TestServer;
beforeAll(async () => {
  server = await TestServer.start();
});
afterAll(() => server?.close());

describe('the password-reset mail', () => {
  it('greets by username, never with the display name', async () => {
    const account = await signUp(server, {
      displayName: 'SECURITY ALERT: log in at http://evil.example/x',
      language: 'en',
    });
    const since = server.smtp.messages.length;
    await server.request('POST', '/auth/forgot-password', { body: { email: account.email } });
    const mail = await server.smtp.waitFor(account.email, { since });
    expect(mail.text).toContain(`Hello ${account.username},`);
    expect(mail.html).toContain(`Hello ${account.username},`);
    for (const part of [mail.text, mail.html, mail.subject]) {
      expect(part).not.toContain('evil.example');
      expect(part).not.toContain('SECURITY ALERT');
    }
    // The only link is ours.
    expect(mail.text?.match(/https?:\/\/\S+/g)).toEqual([
      expect.stringMatching(/^http:\/\/app\.test\/reset-password\?token=[\w-]{43}$/),
    ]);
  });

  it('escapes everything it puts into the HTML part', () => {
    const mail = passwordResetMail(
      'someone@example.test',
      '<b>name</b>&"\'',
      'http://app.test/reset-password?token=a"><script>alert(1)</script>',
      'en',
    );
    expect(mail.html).not.toContain('<b>');
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).not.toContain('"><');
    expect(mail.html).toContain('&#60;b&#62;name&#60;/b&#62;&#38;&#34;&#39;');
    expect(mail.html).toContain('href="http://app.test/reset-password?token=a&#34;&#62;&#60;script&#62;');
  });
});
