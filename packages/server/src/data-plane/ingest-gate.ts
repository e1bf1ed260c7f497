import { RateLimitedError } from "../errors.js";

/**
 * Back-pressure for ingest: at most `limit` batches are written at once; the next caller gets a
 * 429 with a retry delay instead of queueing bodies in memory without bound.
 *
 * @example
 * ```ts
 * const gate = new IngestGate(8);
 * const result = await gate.run(() => storage.samples.insert(batch.samples));
 * ```
 */
export class IngestGate {
  #inFlight = 0;

  constructor(
    readonly limit: number,
    readonly retryAfterSeconds = 1,
  ) {}

  get inFlight(): number {
    return this.#inFlight;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#inFlight >= this.limit) {
      throw new RateLimitedError(this.retryAfterSeconds, "Too many ingest batches in flight; retry shortly");
    }
    this.#inFlight++;
    try {
      return await work();
    } finally {
      this.#inFlight--;
    }
  }
}
