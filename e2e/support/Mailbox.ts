/**
 * A real SMTP listener on 127.0.0.1 (no TLS, no auth) that keeps every message it
 * receives, so tests can read what the API mailed.
 */

import { freePort } from '@voice/bus/testing';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** One received message with its envelope recipients. */
export interface ReceivedMail {
  to: string[];
  mail: ParsedMail;
}

type Waiter = { matches: (message: ReceivedMail) => boolean; resolve: (message: ReceivedMail) => void };

export class Mailbox {
  readonly #server: SMTPServer;
  readonly #messages: ReceivedMail[] = [];
  readonly #waiters = new Set<Waiter>();
  readonly port: number;

  private constructor(server: SMTPServer, port: number) {
    this.#server = server;
    this.port = port;
  }

  static async start(): Promise<Mailbox> {
    const port = await freePort();
    let mailbox: Mailbox | undefined;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        const to = session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase());
        simpleParser(stream).then(
          (mail) => {
            mailbox?.deliver({ to, mail });
            callback();
          },
          (error: Error) => callback(error),
        );
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    mailbox = new Mailbox(server, port);
    return mailbox;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  private deliver(message: ReceivedMail): void {
    this.#messages.push(message);
    for (const waiter of this.#waiters) {
      if (waiter.matches(message)) {
        this.#waiters.delete(waiter);
        waiter.resolve(message);
      }
    }
  }

  /** The first message to `address` received after `since` (an index from `count`). */
  waitForMessageTo(address: string, { since = 0, timeoutMs = 15_000 } = {}): Promise<ReceivedMail> {
    const recipient = address.toLowerCase();
    const matches = (message: ReceivedMail) => message.to.includes(recipient);
    const existing = this.#messages.slice(since).find(matches);
    if (existing) return Promise.resolve(existing);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        matches,
        resolve: (message) => {
          clearTimeout(timer);
          resolve(message);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(new Error(`No mail to ${address} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#waiters.add(waiter);
    });
  }

  /** How many messages have arrived so far. */
  get count(): number {
    return this.#messages.length;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}
