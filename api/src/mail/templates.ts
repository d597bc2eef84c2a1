/** Mail messages, in the recipient's language. */
import type { Mail } from './Mailer.ts';
import { passwordResetTexts } from './mailTexts.ts';

/** Escapes every character that means something in HTML text or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The password-reset mail. It greets by `username`, never by the display name: a display
 * name is free text its owner chose ("SECURITY ALERT: log in at http://…"), and this mail
 * goes to whoever owns the email address. A username holds only letters, digits and `_`.
 */
export function passwordResetMail(to: string, username: string, link: string, language: string): Mail {
  const t = passwordResetTexts(language, { name: username });
  const text = [t.greeting, '', t.intro, '', link, '', t.ignore].join('\n');
  const html = `<p>${escapeHtml(t.greeting)}</p>
<p>${escapeHtml(t.intro)}</p>
<p><a href="${escapeHtml(link)}">${escapeHtml(t.action)}</a></p>
<p>${escapeHtml(t.ignore)}</p>`;
  return { to, subject: t.subject, text, html };
}
