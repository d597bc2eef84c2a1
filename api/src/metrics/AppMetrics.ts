/**
 * The API process's Prometheus metrics, on a registry of its own: Node's process and event-loop
 * metrics, HTTP requests, app sockets, people online, ended calls, bus traffic, mail and pushes,
 * and the embedded media server's when there is one. Features do not import prom-client: they
 * report through small callbacks (services.ts wires them here), and counts that already exist
 * elsewhere are read when Prometheus asks.
 */
import type { BusObserver } from '@voice/bus';
import {
  busMetrics,
  createMetricsRegistry,
  type MediaServer,
  registerMediaMetrics,
} from '@voice/media-server';
import { CALL_END_REASONS, type CallEndReason } from '@voice/protocol';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { PushOutcome } from '../notifications/PushSender.ts';

/** How a mail ended: handed to the SMTP server (or the outbox), or refused on the way. */
export type MailOutcome = 'sent' | 'failed';

const MAIL_OUTCOMES: readonly MailOutcome[] = ['sent', 'failed'];
const PUSH_OUTCOMES: readonly PushOutcome[] = ['sent', 'gone', 'refused', 'failed', 'dropped'];

/** The route label of requests no router pattern matched (web app files, avatars, unknown paths). */
export const UNMATCHED_ROUTE = 'unmatched';

export class AppMetrics {
  readonly registry: Registry;
  /** For an ObservedBus: counts what this process publishes and receives. */
  readonly bus: BusObserver;
  readonly #requests: Counter<'method' | 'route' | 'status'>;
  readonly #requestSeconds: Histogram<'method' | 'route' | 'status'>;
  readonly #calls: Counter<'reason'>;
  readonly #mails: Counter<'outcome'>;
  readonly #pushes: Counter<'outcome'>;
  #appSockets: () => number = () => 0;
  #peopleOnline: () => number = () => 0;
  #media: MediaServer | null = null;

  constructor() {
    const registry = createMetricsRegistry();
    const registers = [registry];
    this.registry = registry;
    this.bus = busMetrics(registry);
    const labelNames = ['method', 'route', 'status'] as const;
    this.#requests = new Counter({
      name: 'voice_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status',
      labelNames,
      registers,
    });
    this.#requestSeconds = new Histogram({
      name: 'voice_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by method, route pattern and status',
      labelNames,
      registers,
    });
    const metrics = this;
    new Gauge({
      name: 'voice_app_sockets',
      help: 'App sockets (/ws) open on this process',
      registers,
      collect() {
        this.set(metrics.#appSockets());
      },
    });
    new Gauge({
      name: 'voice_people_online',
      help: 'People with at least one app socket on this process (summed over processes, someone connected to two counts twice)',
      registers,
      collect() {
        this.set(metrics.#peopleOnline());
      },
    });
    this.#calls = new Counter({
      name: 'voice_calls_ended_total',
      help: 'One-to-one calls ended, by end reason',
      labelNames: ['reason'],
      registers,
    });
    // Every label value shows from the start, at 0, so a rate over it is defined before the first one.
    for (const reason of CALL_END_REASONS) this.#calls.inc({ reason }, 0);
    this.#mails = new Counter({
      name: 'voice_mail_sends_total',
      help: 'Mails sent (SMTP, or the outbox without SMTP_URL), by outcome (sent, failed)',
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of MAIL_OUTCOMES) this.#mails.inc({ outcome }, 0);
    this.#pushes = new Counter({
      name: 'voice_push_sends_total',
      help: 'Web pushes, by outcome (sent, gone, refused, failed after retries, dropped when the queue was full)',
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of PUSH_OUTCOMES) this.#pushes.inc({ outcome }, 0);
  }

  /** One HTTP request answered; `route` is the router's pattern, never the raw path. */
  request(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.#requests.inc(labels);
    this.#requestSeconds.observe(labels, seconds);
  }

  callEnded(reason: CallEndReason): void {
    this.#calls.inc({ reason });
  }

  mailSent(outcome: MailOutcome): void {
    this.#mails.inc({ outcome });
  }

  pushSent(outcome: PushOutcome): void {
    this.#pushes.inc({ outcome });
  }

  /** Reads this process's app sockets (AppSocketServer.connectionCount) at every scrape. */
  watchAppSockets(count: () => number): void {
    this.#appSockets = count;
  }

  /** Reads this process's people online (Presence.localUsers) at every scrape. */
  watchPeopleOnline(count: () => number): void {
    this.#peopleOnline = count;
  }

  /** Adds the embedded media server's rooms, peers, producers, consumers and workers; once per process. */
  watchMedia(media: MediaServer): void {
    if (this.#media === media) return;
    if (this.#media !== null) throw new TypeError('AppMetrics already watches a media server');
    this.#media = media;
    registerMediaMetrics(this.registry, media);
  }
}
