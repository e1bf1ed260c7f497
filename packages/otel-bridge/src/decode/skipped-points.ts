import type { SkippedPoints, SkipReason } from "./decoded-observations.js";

/** Skipped points by reason and metric name, at most `maxNames` names per reason (then "other"). */
export class Skipped {
  readonly result: SkippedPoints = { count: 0, byReason: {} };
  readonly #names = new Map<SkipReason, number>();
  constructor(private readonly maxNames: number) {}

  add(points: number, reason: SkipReason, metric: string): void {
    if (points <= 0) return;
    this.result.count += points;
    let names = this.result.byReason[reason];
    if (!names) {
      names = {};
      this.result.byReason[reason] = names;
    }
    let key = metric;
    if (names[key] === undefined) {
      const distinct = this.#names.get(reason) ?? 0;
      if (distinct >= this.maxNames) key = "other";
      else this.#names.set(reason, distinct + 1);
    }
    names[key] = (names[key] ?? 0) + points;
  }
}
