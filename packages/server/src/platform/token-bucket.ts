/** Options of {@link TokenBuckets}. */
export type TokenBucketOptions = {
  /** Tokens added per second (the sustained rate). */
  ratePerSecond: number;
  /** Bucket size (the largest burst). */
  capacity: number;
  /** Most buckets kept; beyond, idle ones are dropped first. @default 100000 */
  maxBuckets?: number;
  /** Clock in ms, for tests. @default Date.now */
  now?: () => number;
};

type Bucket = { tokens: number; at: number };

/**
 * One token bucket per key (a token's hash, an IP): `take` spends one token or says how long to
 * wait for the next. Memory stays bounded: full buckets are forgotten (a fresh one is identical).
 *
 * @example
 * ```ts
 * const buckets = new TokenBuckets({ ratePerSecond: 10, capacity: 20 });
 * const wait = buckets.take("token-a"); // 0 when allowed, else seconds to wait
 * ```
 */
export class TokenBuckets {
  readonly #buckets = new Map<string, Bucket>();
  readonly #rate: number;
  readonly #capacity: number;
  readonly #max: number;
  readonly #now: () => number;

  constructor(options: TokenBucketOptions) {
    this.#rate = options.ratePerSecond;
    this.#capacity = options.capacity;
    this.#max = options.maxBuckets ?? 100_000;
    this.#now = options.now ?? Date.now;
  }

  /** Spends one token of `key`: 0 if allowed, otherwise the seconds until one is available. */
  take(key: string): number {
    const now = this.#now();
    let bucket = this.#buckets.get(key);
    if (bucket) {
      bucket.tokens = Math.min(this.#capacity, bucket.tokens + ((now - bucket.at) / 1000) * this.#rate);
      bucket.at = now;
    } else {
      if (this.#buckets.size >= this.#max) this.sweep();
      bucket = { tokens: this.#capacity, at: now };
      this.#buckets.set(key, bucket);
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return (1 - bucket.tokens) / this.#rate;
  }

  /** Forgets buckets that have refilled; if still too many, the oldest ones. */
  sweep(): void {
    const now = this.#now();
    for (const [key, b] of this.#buckets) {
      if (b.tokens + ((now - b.at) / 1000) * this.#rate >= this.#capacity) this.#buckets.delete(key);
    }
    for (const key of this.#buckets.keys()) {
      if (this.#buckets.size < this.#max) break;
      this.#buckets.delete(key);
    }
  }

  /** Number of buckets held. */
  get size(): number {
    return this.#buckets.size;
  }
}
