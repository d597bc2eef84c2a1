/** Mail texts. */
import type { Mail } from './Mailer.ts';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function passwordResetMail(to: string, name: string, link: string): Mail {
  const text = [
    `Hello ${name},`,
    '',
    'Someone asked to reset the password of your Voice account.',
    'Open this link within one hour to choose a new password:',
    '',
    link,
    '',
    'If it was not you, ignore this message: your password stays as it is.',
  ].join('\n');
  const html = `<p>Hello ${escapeHtml(name)},</p>
<p>Someone asked to reset the password of your Voice account. Open this link within one hour to choose a new password:</p>
<p><a href="${escapeHtml(link)}">Reset your password</a></p>
<p>If it was not you, ignore this message: your password stays as it is.</p>`;
  return { to, subject: 'Reset your Voice password', text, html };
}
