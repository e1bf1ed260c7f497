import { calibrateJob } from "./calibrate-job.js";
import type { CalibrationExample, ConformalTable, DeliveredRecord } from "./conformal-table.js";

/** Options of {@link recordDelivered}. */
export type DeliveredOptions = {
  /**
   * Most jobs the record weighs: older counts are scaled down to it, so the restatement follows
   * the site's drift.
   * @default {@link DELIVERED_JOBS}
   */
  maxJobs?: number;
  /**
   * Pseudo-jobs at the stated confidence each bucket's delivered share is shrunk with, so a bucket
   * of a few jobs barely moves what it states.
   * @default 100
   */
  priorJobs?: number;
};

/** Default of {@link DeliveredOptions.maxJobs}: as many as a full calibration pool. */
export const DELIVERED_JOBS = 15_000;

// Buckets of the stated miss (1 − confidence): fine where the promises are, coarse below them.
const MISS_EDGES = [0.002, 0.005, 0.01, 0.015, 0.02, 0.03, 0.05, 0.08, 0.12, 0.2, 0.3, 0.5];

function bucketOf(confidence: number): number {
  const miss = 1 - confidence;
  let k = 0;
  while (k < MISS_EDGES.length && miss > MISS_EDGES[k]) k++;
  return k;
}

/**
 * Adds to `served`'s own record (`delivered`, if any) what it delivered on jobs that have ended since it was fitted: for each
 * of `ended` (calibration examples of those jobs, under the model that served them), the confidence
 * the table stated and whether the job's use stayed within the value it gave (the range's top; the
 * evaluation's "not under-predicted"). Jobs it abstained on are not counted. Counts beyond
 * `maxJobs` are scaled down, the old with the new.
 *
 * @example
 * ```ts
 * const record = recordDelivered(model.calibration, endedExamples);
 * const table = withDelivered(fitConformal(pool), record);
 * ```
 */
export function recordDelivered(
  served: ConformalTable,
  ended: readonly CalibrationExample[],
  options: DeliveredOptions = {},
): DeliveredRecord {
  const K = MISS_EDGES.length + 1;
  const previous = served.delivered;
  const jobs = previous ? [...previous.jobs] : new Array<number>(K).fill(0);
  const met = previous ? [...previous.met] : new Array<number>(K).fill(0);
  const stated = previous ? [...previous.stated] : new Array<number>(K).fill(0);
  for (const e of ended) {
    const r = calibrateJob(served, e);
    if (r.tooUncertain) continue;
    const k = bucketOf(r.confidence);
    jobs[k]++;
    stated[k] += r.confidence;
    if (e.y <= r.logValue) met[k]++;
  }
  const total = jobs.reduce((a, b) => a + b, 0);
  const max = options.maxJobs ?? DELIVERED_JOBS;
  if (total > max) {
    const f = max / total;
    for (let k = 0; k < K; k++) {
      jobs[k] *= f;
      met[k] *= f;
      stated[k] *= f;
    }
  }
  return { jobs, met, stated };
}

/**
 * `table` with `record` and the restatement fitted from it: per bucket of stated confidence, the
 * share of its jobs whose use stayed within their value, shrunk with `priorJobs` pseudo-jobs toward
 * the share over all buckets, and made non-decreasing in the stated confidence (pool adjacent
 * violators). Toward the overall share, not toward what the bucket stated: the confidence of a
 * small calibration cell is a noisy measure (HPC2N memory: cells that stated 80% delivered 79%,
 * then 97%), so a bucket of few jobs is told what the site's promises deliver at large.
 *
 * @example
 * ```ts
 * const table = withDelivered(fitConformal(pool), record);
 * restateConfidence(table, 0.8); // e.g. 0.95 where such promises were kept 95% of the time
 * ```
 */
export function withDelivered(
  table: ConformalTable,
  record: DeliveredRecord,
  options: DeliveredOptions = {},
): ConformalTable {
  const prior = options.priorJobs ?? 100;
  let jobs = 0;
  let met = 0;
  let said = 0;
  for (let k = 0; k < record.jobs.length; k++) {
    jobs += record.jobs[k];
    met += record.met[k];
    said += record.stated[k];
  }
  // What the record delivered overall, itself shrunk toward what it stated while it is small.
  const overall = jobs > 0 ? (met + (prior * said) / jobs) / (jobs + prior) : 0;
  const blocks: { stated: number[]; delivered: number; weight: number }[] = [];
  // Ascending stated confidence: the last bucket (the largest miss) first.
  for (let k = record.jobs.length - 1; k >= 0; k--) {
    const n = record.jobs[k];
    if (!(n > 0)) continue;
    const mean = record.stated[k] / n;
    blocks.push({
      stated: [mean],
      delivered: (record.met[k] + prior * overall) / (n + prior),
      weight: n + prior,
    });
    while (blocks.length > 1 && blocks[blocks.length - 2].delivered > blocks[blocks.length - 1].delivered) {
      const b = blocks.pop() as (typeof blocks)[number];
      const a = blocks.pop() as (typeof blocks)[number];
      const weight = a.weight + b.weight;
      blocks.push({
        stated: [...a.stated, ...b.stated],
        delivered: (a.delivered * a.weight + b.delivered * b.weight) / weight,
        weight,
      });
    }
  }
  const stated: number[] = [];
  const delivered: number[] = [];
  for (const b of blocks) {
    for (const s of b.stated) {
      stated.push(s);
      delivered.push(b.delivered);
    }
  }
  return { ...table, delivered: record, restated: { stated, delivered } };
}

const logit = (p: number) => {
  const q = Math.min(Math.max(p, 1e-6), 1 - 1e-6);
  return Math.log(q / (1 - q));
};
const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/**
 * The confidence to state for a job the table calibrated with `confidence`: what such statements
 * delivered on the site's ended jobs (interpolated between buckets, shifted on the log-odds
 * scale beyond the outer ones); `confidence` itself while nothing has been delivered yet.
 *
 * @example
 * ```ts
 * const shown = restateConfidence(model.calibration, r.confidence);
 * ```
 */
export function restateConfidence(table: Pick<ConformalTable, "restated">, confidence: number): number {
  const map = table.restated;
  if (!map || map.stated.length === 0) return confidence;
  const { stated, delivered } = map;
  const last = stated.length - 1;
  if (confidence <= stated[0]) return sigmoid(logit(confidence) + logit(delivered[0]) - logit(stated[0]));
  if (confidence >= stated[last]) {
    return sigmoid(logit(confidence) + logit(delivered[last]) - logit(stated[last]));
  }
  let i = 1;
  while (stated[i] < confidence) i++;
  const t = (confidence - stated[i - 1]) / (stated[i] - stated[i - 1]);
  return delivered[i - 1] + t * (delivered[i] - delivered[i - 1]);
}
