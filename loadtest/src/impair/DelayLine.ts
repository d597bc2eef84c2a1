/**
 * One direction of an impaired link, in userspace: a datagram first waits for the link to be free
 * (a rate limit, as a token bucket of one packet: each takes size × 8 / rate ms to send), then
 * for the delay ± jitter. Departures keep the arrival order, as a real queue does, so jitter
 * spreads packets out without reordering them. A datagram that would wait longer than the
 * queue's limit for the rate is dropped, as a full router queue drops it.
 */
import type { ImpairSpec } from '../results/types.ts';

/** IPv4 and UDP headers, counted against the rate as the wire would. */
const HEADER_BYTES = 28;
/** The longest a datagram queues for the rate before it is dropped (a router's buffer). */
const QUEUE_LIMIT_MS = 300;

interface Waiting {
  departAt: number;
  arrivedAt: number;
  send: () => void;
}

export interface DelayLineStats {
  passed: number;
  /** Dropped because the rate's queue was full. */
  dropped: number;
  /** Mean time a datagram spent in this stage, ms. */
  meanHeldMs: number | null;
}

export class DelayLine {
  readonly #queue: Waiting[] = [];
  #timer: NodeJS.Timeout | null = null;
  /** When the rate-limited link finishes sending what it already has. */
  #linkFreeAt = 0;
  #lastDeparture = 0;
  #passed = 0;
  #dropped = 0;
  #heldMsTotal = 0;
  #closed = false;

  constructor(
    private readonly spec: Pick<ImpairSpec, 'delayMs' | 'jitterMs' | 'rateKbit'>,
    private readonly random: () => number = Math.random,
  ) {}

  /** Queues `send` for the datagram of `bytes` payload bytes; it runs when the datagram departs. */
  push(bytes: number, send: () => void): void {
    if (this.#closed) return;
    const now = performance.now();
    let ready = now;
    const { rateKbit } = this.spec;
    if (rateKbit) {
      // kbit/s is bits per ms.
      const start = Math.max(now, this.#linkFreeAt);
      if (start - now > QUEUE_LIMIT_MS) {
        this.#dropped++;
        return;
      }
      this.#linkFreeAt = start + ((bytes + HEADER_BYTES) * 8) / rateKbit;
      ready = this.#linkFreeAt;
    }
    const jitter = this.spec.jitterMs ?? 0;
    const delay = Math.max(0, (this.spec.delayMs ?? 0) + (this.random() * 2 - 1) * jitter);
    const departAt = Math.max(ready + delay, this.#lastDeparture);
    this.#lastDeparture = departAt;
    this.#queue.push({ departAt, arrivedAt: now, send });
    if (this.#queue.length === 1) this.#schedule();
  }

  stats(): DelayLineStats {
    return {
      passed: this.#passed,
      dropped: this.#dropped,
      meanHeldMs: this.#passed ? this.#heldMsTotal / this.#passed : null,
    };
  }

  /** Drops whatever still waits; nothing is sent after this. */
  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#queue.length = 0;
  }

  #schedule(): void {
    const head = this.#queue[0];
    if (!head || this.#closed) return;
    this.#timer = setTimeout(() => this.#release(), Math.max(0, head.departAt - performance.now()));
  }

  /** Sends every datagram whose time has come (timers fire late, never early), then waits for the next. */
  #release(): void {
    this.#timer = null;
    const now = performance.now();
    while (this.#queue.length > 0 && (this.#queue[0] as Waiting).departAt <= now + 0.5) {
      const due = this.#queue.shift() as Waiting;
      this.#passed++;
      this.#heldMsTotal += now - due.arrivedAt;
      due.send();
    }
    this.#schedule();
  }
}
