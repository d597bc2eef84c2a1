/** Allows `ratePerSecond` on average with bursts up to `burst`: a socket's or a member's request allowance. */
export class TokenBucket {
  readonly #ratePerSecond: number;
  readonly #burst: number;
  #tokens: number;
  #refilledAt = Date.now();

  constructor(ratePerSecond: number, burst: number) {
    this.#ratePerSecond = ratePerSecond;
    this.#burst = burst;
    this.#tokens = burst;
  }

  /** Takes one token; false when none is left. */
  take(now = Date.now()): boolean {
    const refill = ((now - this.#refilledAt) / 1000) * this.#ratePerSecond;
    this.#tokens = Math.min(this.#burst, this.#tokens + refill);
    this.#refilledAt = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}
