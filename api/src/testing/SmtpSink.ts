/** A real SMTP listener on loopback that keeps every message it receives, for tests. */
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export class SmtpSink {
  readonly messages: ParsedMail[] = [];
  #server: SMTPServer;
  #waiters: Array<() => void> = [];

  private constructor() {
    this.#server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData: (stream, _session, callback) => {
        simpleParser(stream)
          .then((mail) => {
            this.messages.push(mail);
            for (const wake of this.#waiters.splice(0)) wake();
            callback();
          })
          .catch(callback);
      },
    });
  }

  static async start(): Promise<SmtpSink> {
    const sink = new SmtpSink();
    await new Promise<void>((resolve) => sink.#server.listen(0, '127.0.0.1', resolve));
    return sink;
  }

  get url(): string {
    const { port } = this.#server.server.address() as AddressInfo;
    return `smtp://127.0.0.1:${port}`;
  }

  /** Waits for the first message to `to` (case-insensitive) received after `since` messages. */
  async waitFor(to: string, { since = 0, timeoutMs = 10_000 } = {}): Promise<ParsedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages
        .slice(since)
        .find((m) => m.to && JSON.stringify(m.to).toLowerCase().includes(to.toLowerCase()));
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}
