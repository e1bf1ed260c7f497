/**
 * Counts of what an integration did with each request, by outcome (`patched`, `timeout`,
 * `predictor_error`, …): the fail-open reasons a platform team watches.
 *
 * @example
 * ```ts
 * const counts = new OutcomeCounter();
 * counts.add("timeout");
 * counts.snapshot(); // { timeout: 1 }
 * ```
 */
export class OutcomeCounter<K extends string = string> {
  private readonly counts = new Map<K, number>();

  add(outcome: K, n = 1): void {
    this.counts.set(outcome, (this.counts.get(outcome) ?? 0) + n);
  }

  get(outcome: K): number {
    return this.counts.get(outcome) ?? 0;
  }

  /** A copy of every count so far. */
  snapshot(): Partial<Record<K, number>> {
    return Object.fromEntries(this.counts) as Partial<Record<K, number>>;
  }
}
