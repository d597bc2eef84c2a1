/**
 * Delivers web pushes off the request path: a bounded queue per process, a few requests at
 * once, retries with doubling delays, and subscriptions forgotten when their push service
 * says they are gone.
 *
 * web-push signs (VAPID JWT) and encrypts (aes128gcm) each request; the request itself is
 * ours rather than web-push's `sendNotification`, so that its DNS lookup is the checked one
 * (PushEndpoints.lookupFor), its answer is read only so far, and the test-only push services
 * on the allow list may be plain http.
 */
import http from 'node:http';
import https from 'node:https';
import { PUSH_DELIVERY, type PushPayload } from '@voice/protocol';
import webpush from 'web-push';
import type { Logger } from '../logger.ts';
import type { PushEndpoints } from './PushEndpoints.ts';
import type { PushSubscriptionRow, PushSubscriptions } from './PushSubscriptions.ts';
import type { VapidConfig } from './vapidKeys.ts';

export interface PushSenderOptions {
  vapid: Readonly<VapidConfig>;
  endpoints: PushEndpoints;
  subscriptions: PushSubscriptions;
  logger: Logger;
  /** Pushes waiting or under way, retries included, beyond which new ones are dropped. */
  maxQueued?: number;
  /** Requests to push services at once. */
  concurrency?: number;
  /** Told how each push ended, retries done (metrics). */
  onOutcome?: (outcome: PushOutcome) => void;
}

/**
 * How a push ended: accepted; its subscription gone (404/410); refused for good; failed after
 * every retry; or dropped because the queue was full.
 */
export type PushOutcome = 'sent' | 'gone' | 'refused' | 'failed' | 'dropped';

interface Job {
  subscription: Pick<PushSubscriptionRow, 'endpoint' | 'p256dh' | 'auth'>;
  body: string;
  /** Attempts made so far. */
  attempts: number;
}

/** How a push service answered: delivered, gone for good, worth another try, or refused. */
type Outcome = 'sent' | 'gone' | 'retry' | 'drop';

/** What each answer means once no retry follows (a `retry` then failed for good). */
const FINAL_OUTCOME: Record<Outcome, PushOutcome> = {
  sent: 'sent',
  gone: 'gone',
  retry: 'failed',
  drop: 'refused',
};

// A push service's answer is a status and a short text; nothing more is read.
const MAX_ANSWER_BYTES = 4096;

export class PushSender {
  readonly #options: PushSenderOptions;
  readonly #maxQueued: number;
  readonly #concurrency: number;
  readonly #waiting: Job[] = [];
  readonly #retryTimers = new Set<NodeJS.Timeout>();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #abort = new AbortController();
  /** Jobs waiting, under way or waiting to be retried: what maxQueued bounds. */
  #queued = 0;
  #closed = false;

  constructor(options: PushSenderOptions) {
    this.#options = options;
    this.#maxQueued = options.maxQueued ?? 1000;
    this.#concurrency = options.concurrency ?? 16;
  }

  /** Queues `payload` for `subscription`; never waits for the push service. False when dropped. */
  send(subscription: Job['subscription'], payload: PushPayload): boolean {
    if (this.#closed) return false;
    if (this.#queued >= this.#maxQueued) {
      this.#options.logger.warn('push: queue full, push dropped', { type: payload.type });
      this.#options.onOutcome?.('dropped');
      return false;
    }
    this.#queued += 1;
    this.#waiting.push({ subscription, body: JSON.stringify(payload), attempts: 0 });
    this.#pump();
    return true;
  }

  /** Stops retries, cuts requests under way and waits for them. Safe to call more than once. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#abort.abort();
    for (const timer of this.#retryTimers) clearTimeout(timer);
    this.#retryTimers.clear();
    this.#waiting.length = 0;
    await Promise.allSettled([...this.#inFlight]);
  }

  #pump(): void {
    while (!this.#closed && this.#inFlight.size < this.#concurrency && this.#waiting.length > 0) {
      const job = this.#waiting.shift() as Job;
      const work = this.#attempt(job);
      this.#inFlight.add(work);
      work.finally(() => {
        this.#inFlight.delete(work);
        this.#pump();
      });
    }
  }

  async #attempt(job: Job): Promise<void> {
    job.attempts += 1;
    const { logger, subscriptions } = this.#options;
    const outcome = await this.#deliver(job);
    if (outcome === 'retry' && job.attempts < PUSH_DELIVERY.attempts && !this.#closed) {
      const timer = setTimeout(
        () => {
          this.#retryTimers.delete(timer);
          this.#waiting.push(job);
          this.#pump();
        },
        PUSH_DELIVERY.firstRetryMs * 2 ** (job.attempts - 1),
      );
      timer.unref();
      this.#retryTimers.add(timer);
      return;
    }
    this.#queued -= 1;
    this.#options.onOutcome?.(FINAL_OUTCOME[outcome]);
    if (outcome === 'gone') {
      await subscriptions.expire(job.subscription.endpoint).catch((error: unknown) => {
        logger.warn('push: expired subscription not removed', { error });
      });
    }
  }

  /** One request to the push service. Logs name the service's origin only: the path is the secret. */
  async #deliver(job: Job): Promise<Outcome> {
    const { endpoints, vapid, logger } = this.#options;
    const { endpoint, p256dh, auth } = job.subscription;
    let url: URL;
    try {
      url = endpoints.parse(endpoint);
    } catch {
      return 'drop';
    }
    const service = url.origin;
    try {
      const details = webpush.generateRequestDetails({ endpoint, keys: { p256dh, auth } }, job.body, {
        vapidDetails: vapid,
        TTL: PUSH_DELIVERY.ttlSeconds,
        contentEncoding: 'aes128gcm',
        urgency: 'high',
      });
      const status = await this.#post(url, details.headers, details.body as Buffer);
      if (status >= 200 && status < 300) return 'sent';
      if (status === 404 || status === 410) return 'gone';
      const retry = status === 429 || status >= 500;
      logger.warn('push: refused by the push service', { service, status, attempt: job.attempts, retry });
      return retry ? 'retry' : 'drop';
    } catch (error) {
      if (this.#closed) return 'drop';
      logger.warn('push: push service not reached', {
        service,
        attempt: job.attempts,
        error: (error as Error).message,
      });
      return 'retry';
    }
  }

  /** POSTs `body` and resolves with the answer's status, within PUSH_DELIVERY.timeoutMs. */
  #post(url: URL, headers: Record<string, string | number>, body: Buffer): Promise<number> {
    const client = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const request = client.request(url, {
        method: 'POST',
        headers,
        lookup: this.#options.endpoints.lookupFor(url),
        timeout: PUSH_DELIVERY.timeoutMs,
        signal: this.#abort.signal,
        agent: false,
      });
      // A whole-request deadline: `timeout` alone is per idle socket.
      const deadline = setTimeout(() => request.destroy(new Error('timed out')), PUSH_DELIVERY.timeoutMs);
      deadline.unref();
      request.on('timeout', () => request.destroy(new Error('timed out')));
      request.on('error', (error) => {
        clearTimeout(deadline);
        reject(error);
      });
      request.on('response', (response) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) response.destroy();
        });
        const done = () => {
          clearTimeout(deadline);
          resolve(response.statusCode ?? 0);
        };
        response.on('end', done);
        response.on('close', done);
        response.on('error', done);
      });
      request.end(body);
    });
  }
}
