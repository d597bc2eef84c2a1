/** Mail messages, in the recipient's language. */
import type { Mail } from './Mailer.ts';
import { passwordResetTexts } from './mailTexts.ts';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function passwordResetMail(to: string, name: string, link: string, language: string): Mail {
  const t = passwordResetTexts(language, { name });
  const text = [t.greeting, '', t.intro, '', link, '', t.ignore].join('\n');
  const html = `<p>${escapeHtml(t.greeting)}</p>
<p>${escapeHtml(t.intro)}</p>
<p><a href="${escapeHtml(link)}">${escapeHtml(t.action)}</a></p>
<p>${escapeHtml(t.ignore)}</p>`;
  return { to, subject: t.subject, text, html };
}
