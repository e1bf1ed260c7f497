const INITIAL_SLOTS = 4;

/**
 * The recent past of one group of similar jobs for one resource: the last `capacity` exact values
 * (log scale) of completed jobs with their request and scale, and the last few lower bounds left by
 * killed jobs. Jobs enter when they end, never earlier.
 */
export class GroupHistory {
  /** Completed jobs seen, ever. */
  count = 0;
  /** Killed jobs seen, ever. */
  censoredCount = 0;
  /** End time of the most recent job (completed or killed). */
  lastEnd = Number.NEGATIVE_INFINITY;
  /** End time of the oldest job still in the window. */
  firstEnd = Number.NaN;
  // Grown by doubling up to `capacity`: most groups hold a few jobs, and V8 keeps arrays of up to
  // 64 bytes on its heap while larger ones each cost an off-heap buffer (docs/performance.md).
  values: Float64Array;
  requests: Float64Array;
  scales: Float64Array;
  ends: Float64Array;
  censored: Float64Array;
  #head = 0;
  #censoredHead = 0;

  constructor(
    readonly capacity: number,
    readonly censoredCapacity = 8,
  ) {
    const first = Math.min(capacity, INITIAL_SLOTS);
    this.values = new Float64Array(first);
    this.requests = new Float64Array(first);
    this.scales = new Float64Array(first);
    this.ends = new Float64Array(first);
    this.censored = new Float64Array(censoredCapacity);
  }

  /** Number of exact values held (≤ capacity). */
  get size(): number {
    return Math.min(this.count, this.capacity);
  }

  /** Number of lower bounds held. */
  get censoredSize(): number {
    return Math.min(this.censoredCount, this.censoredCapacity);
  }

  /** Records a completed job: log value, log request and log scale (NaN when unknown). */
  addExact(logValue: number, logRequest: number, logScale: number, end: number): void {
    const i = this.#head;
    if (i === this.values.length && i < this.capacity) this.#grow();
    this.values[i] = logValue;
    this.requests[i] = logRequest;
    this.scales[i] = logScale;
    this.ends[i] = end;
    this.#head = (i + 1) % this.capacity;
    this.count++;
    this.firstEnd = this.ends[this.count >= this.capacity ? this.#head : 0];
    this.lastEnd = Math.max(this.lastEnd, end);
  }

  /** Records a killed job's usage as a lower bound of its need. */
  addCensored(logLowerBound: number, end: number): void {
    this.censored[this.#censoredHead] = logLowerBound;
    this.#censoredHead = (this.#censoredHead + 1) % this.censoredCapacity;
    this.censoredCount++;
    this.lastEnd = Math.max(this.lastEnd, end);
    if (Number.isNaN(this.firstEnd)) this.firstEnd = end;
  }

  // Only ever called before the ring first wraps, when its slots are in order from 0.
  #grow(): void {
    const size = Math.min(this.capacity, this.values.length * 2);
    const grown = (a: Float64Array) => {
      const b = new Float64Array(size);
      b.set(a);
      return b;
    };
    this.values = grown(this.values);
    this.requests = grown(this.requests);
    this.scales = grown(this.scales);
    this.ends = grown(this.ends);
  }

  /** Index into the ring of the k-th most recent exact value (0 = newest). */
  recentIndex(k: number): number {
    return (this.#head - 1 - k + 2 * this.capacity) % this.capacity;
  }
}
