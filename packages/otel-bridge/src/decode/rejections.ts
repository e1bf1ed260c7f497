import { usageSampleKeyAt } from "../mapping/sample-key.js";
import type { ObservationRejections, RejectedSample } from "./decoded-observations.js";

/** Rejected points counted by reason, at most `maxReasons` distinct ones (then "other reasons"). */
export class Rejections {
  readonly result: ObservationRejections = { count: 0, reasons: {} };
  private distinct = 0;
  constructor(private readonly maxReasons: number) {}

  add(points: number, reason: string): void {
    if (points <= 0) return;
    this.result.count += points;
    let key = reason;
    if (this.result.reasons[key] === undefined) {
      if (this.distinct >= this.maxReasons) key = "other reasons";
      else this.distinct++;
    }
    this.result.reasons[key] = (this.result.reasons[key] ?? 0) + points;
  }
}

type Attributed = {
  cluster: string;
  jobId: string;
  node: string;
  step: string | undefined;
  timeLo: number;
  timeHi: number;
  points: number;
  reason: string;
};

// Far more than an answer can name (see encodeRejectedSamples); a flood of foreign points stays cheap.
const MAX_SAMPLES = 1000;

/**
 * The rejected points that carry a sample identity (cluster, job id, node, step, time), by the
 * sample they belong to, so a sender can tell which of its samples lost points. Rejections are
 * rare: nothing is hashed until {@link list}, and only per rejected sample. Past 1000 samples,
 * further ones are left out (their points are still counted by {@link Rejections}).
 */
export class SampleRejections {
  readonly #bySample = new Map<string, Attributed>();

  /** Counts `points` of the sample with this identity as rejected; the first reason is kept. */
  add(
    points: number,
    reason: string,
    identity: { cluster: string; jobId: string; node: string; step: string | undefined },
    timeLo: number,
    timeHi: number,
  ): void {
    if (points <= 0) return;
    const { cluster, jobId, node, step } = identity;
    // Unambiguous whatever the fields hold; only rejected points pay for it.
    const id = JSON.stringify([cluster, jobId, node, step ?? null, timeHi, timeLo]);
    const found = this.#bySample.get(id);
    if (found) found.points += points;
    else if (this.#bySample.size < MAX_SAMPLES)
      this.#bySample.set(id, { cluster, jobId, node, step, timeLo, timeHi, points, reason });
  }

  /** Every sample with rejected points, in order of its first rejection, keyed by `usageSampleKey`. */
  list(): RejectedSample[] {
    return [...this.#bySample.values()].map((s) => ({
      key: usageSampleKeyAt(
        s.step === undefined
          ? { cluster: s.cluster, jobId: s.jobId, node: s.node }
          : { cluster: s.cluster, jobId: s.jobId, node: s.node, step: s.step },
        (BigInt(s.timeHi) << 32n) | BigInt(s.timeLo),
      ),
      points: s.points,
      reason: s.reason,
    }));
  }
}
