/** Options of {@link Backoff}. */
export type BackoffOptions = {
  /** First delay. @default 1000 */
  initialMs?: number;
  /** Largest delay. @default 60000 */
  maxMs?: number;
  /** Source of randomness in [0, 1). @default Math.random */
  random?: () => number;
};

/**
 * Exponential back-off with jitter: the n-th consecutive failure waits a random time between half
 * and all of `min(max, initial * 2^n)`, so collectors that lost the backend together do not all
 * come back at the same instant.
 *
 * @example
 * ```ts
 * const b = new Backoff();
 * const wait = b.fail(); // ~1 s, then ~2 s, ~4 s … up to a minute
 * b.succeed();
 * ```
 */
export class Backoff {
  private readonly initialMs: number;
  /** The longest delay. */
  readonly maxMs: number;
  private readonly random: () => number;
  failures = 0;

  constructor(options: BackoffOptions = {}) {
    this.initialMs = options.initialMs ?? 1000;
    this.maxMs = options.maxMs ?? 60_000;
    this.random = options.random ?? Math.random;
  }

  /** Record a failure; returns how long to wait before the next attempt. */
  fail(): number {
    const ceiling = Math.min(this.maxMs, this.initialMs * 2 ** Math.min(this.failures, 30));
    this.failures++;
    return Math.round(ceiling / 2 + (ceiling / 2) * this.random());
  }

  succeed(): void {
    this.failures = 0;
  }
}
