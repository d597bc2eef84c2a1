/**
 * An API of its own whose browsers may only relay: a real coturn on loopback (loopback peers
 * allowed, for tests only), an SMTP listener, and the API started with that coturn's TURN
 * URLs, its secret and TURN_FORCE_RELAY. For describe blocks: start in beforeAll, stop in
 * afterAll.
 */
import path from 'node:path';
import type { TestInfo } from '@playwright/test';
import { Coturn } from '@voice/api/testing';
import { ApiServer } from './ApiServer.ts';
import { Mailbox } from './Mailbox.ts';

const TURN_SECRET = 'e2e-relay-Kx7Qm2Wv9Lp4Rt8Zb3Nc6Hf1Jd5Gs0Ya';

export class RelayStack {
  private constructor(
    readonly api: ApiServer,
    readonly coturn: Coturn,
    readonly mailbox: Mailbox,
  ) {}

  /** `name` names the API's log file; `env` adds to the API's environment. */
  static async start(
    testInfo: TestInfo,
    name: string,
    env: Record<string, string> = {},
  ): Promise<RelayStack> {
    const coturn = await Coturn.start({ secret: TURN_SECRET, loopbackPeers: true });
    let mailbox: Mailbox | undefined;
    try {
      mailbox = await Mailbox.start();
      const api = await ApiServer.start({
        smtpUrl: mailbox.url,
        logFile: path.join(testInfo.project.outputDir, `api-${name}.log`),
        env: { TURN_SECRET, TURN_URLS: coturn.turnUrls, TURN_FORCE_RELAY: 'true', ...env },
      });
      return new RelayStack(api, coturn, mailbox);
    } catch (error) {
      await mailbox?.close();
      await coturn.stop();
      throw error;
    }
  }

  async stop(): Promise<void> {
    await this.api.stop();
    await this.mailbox.close();
    await this.coturn.stop();
  }
}
