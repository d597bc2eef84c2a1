/** Allows `ratePerSecond` on average with bursts up to `burst`. */
export class TokenBucket {
  #tokens: number;
  #last = performance.now();

  constructor(
    readonly ratePerSecond: number,
    readonly burst: number,
  ) {
    this.#tokens = burst;
  }

  take(): boolean {
    const now = performance.now();
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#last) / 1000) * this.ratePerSecond);
    this.#last = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}
