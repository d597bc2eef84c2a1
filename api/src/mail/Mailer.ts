/**
 * Outgoing mail through nodemailer: SMTP when SMTP_URL is set, otherwise each message
 * is written to DATA_DIR/outbox as an .eml file and its links are logged, so a
 * developer can follow them without a mail server.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from '../logger.ts';
import { PRIVATE_FILE_MODE, privateDir } from '../privateFiles.ts';

/** One message to send. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface MailerOptions {
  smtpUrl: string | null;
  from: string;
  dataDir: string;
  logger: Logger;
  /** Told how each send ended (metrics). */
  onSent?: (outcome: 'sent' | 'failed') => void;
}

export class Mailer {
  readonly #transport: Transporter;
  readonly #outbox: string | null;
  readonly #from: string;
  readonly #logger: Logger;
  readonly #onSent: NonNullable<MailerOptions['onSent']>;
  readonly #pending = new Set<Promise<void>>();

  constructor({ smtpUrl, from, dataDir, logger, onSent = () => {} }: MailerOptions) {
    this.#from = from;
    this.#logger = logger;
    this.#onSent = onSent;
    if (smtpUrl) {
      this.#transport = nodemailer.createTransport(smtpUrl);
      this.#outbox = null;
    } else {
      this.#transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
      this.#outbox = path.join(dataDir, 'outbox');
    }
  }

  /** Sends `mail`; close() waits for sends still under way. */
  send(mail: Mail): Promise<void> {
    const sending = this.#send(mail);
    this.#pending.add(sending);
    const forget = () => this.#pending.delete(sending);
    sending.then(
      () => {
        forget();
        this.#onSent('sent');
      },
      () => {
        forget();
        this.#onSent('failed');
      },
    );
    return sending;
  }

  async #send(mail: Mail): Promise<void> {
    const info = await this.#transport.sendMail({ from: this.#from, ...mail });
    if (this.#outbox) {
      // Outbox mail holds live reset links: readable by the service alone.
      await privateDir(this.#outbox);
      const file = path.join(this.#outbox, `${Date.now()}-${info.messageId.replace(/[^\w.-]/g, '')}.eml`);
      await writeFile(file, (info as unknown as { message: Buffer }).message, { mode: PRIVATE_FILE_MODE });
      const links = mail.text.match(/https?:\/\/\S+/g) ?? [];
      // Outbox mode is for local use only: printing the link is the point.
      this.#logger.info(`mail to ${mail.to} written to ${file}`);
      for (const link of links) process.stdout.write(`    link: ${link}\n`);
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.#pending]);
    this.#transport.close();
  }
}
