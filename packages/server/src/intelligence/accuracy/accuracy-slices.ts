import type { AccuracySlice, ResourceName } from "@jobsight/schemas";
import type { ScoredOutcome } from "../../data-plane/stores/prediction-store.js";
import type { StoredJob } from "../../data-plane/stores/stored-jobs.js";
import type { LinkedPrediction } from "../recording/link-predictions.js";
import { ALL_RESOURCES } from "../resources.js";

/**
 * What a job did with one resource: its measured use when it completed (`exact`), or, when it
 * was killed for that resource (out of memory, out of time), the amount it had when it was killed:
 * it needed more than that.
 */
export type Outcome = { actual: number; exact: boolean };

const DAY = 86_400;

/**
 * A job's outcome for one resource, or undefined when it tells nothing sure (a job that failed,
 * was cancelled or preempted, or that has no measurement of the resource).
 *
 * @example
 * ```ts
 * outcomeOf(job, "memory"); // { actual: 3.1e9, exact: true }
 * ```
 */
export function outcomeOf(job: StoredJob, resource: ResourceName): Outcome | undefined {
  const p = job.peaks ?? {};
  const run =
    p.runTimeSeconds ??
    (job.endedAt !== undefined && job.startedAt !== undefined ? job.endedAt - job.startedAt : undefined);
  if (job.state === "COMPLETED") {
    const actual =
      resource === "memory"
        ? p.memoryBytes
        : resource === "cores"
          ? (p.coresUsed ?? (p.cpuTimeSeconds !== undefined && run ? p.cpuTimeSeconds / run : undefined))
          : resource === "gpus"
            ? p.gpusUsed
            : resource === "gpuMemory"
              ? p.gpuMemoryBytes
              : run;
    return actual !== undefined && actual > 0 ? { actual, exact: true } : undefined;
  }
  const had = { ...job.spec.requested, ...job.allocated };
  if (job.state === "OUT_OF_MEMORY" && resource === "memory") {
    const bound = Math.max(had.memoryBytes ?? 0, p.memoryBytes ?? 0);
    return bound > 0 ? { actual: bound, exact: false } : undefined;
  }
  if (job.state === "TIMEOUT" && resource === "walltime") {
    const bound = Math.max(had.walltimeSeconds ?? 0, run ?? 0);
    return bound > 0 ? { actual: bound, exact: false } : undefined;
  }
  return undefined;
}

/** Monday 00:00 UTC of the week of a Unix time. */
export function weekStart(unixSeconds: number): string {
  const day = Math.floor(unixSeconds / DAY);
  // 1970-01-01 was a Thursday: day 0 is 3 days after a Monday.
  const monday = day - ((day + 3) % 7);
  return new Date(monday * DAY * 1000).toISOString();
}

type Sums = {
  predicted: number;
  recommended: number;
  under: number;
  sumActual: number;
  underActual: number;
  over: number;
  requestOver: number;
  requestActual: number;
  withRange: number;
  inRange: number;
};

const empty = (): Sums => ({
  predicted: 0,
  recommended: 0,
  under: 0,
  sumActual: 0,
  underActual: 0,
  over: 0,
  requestOver: 0,
  requestActual: 0,
  withRange: 0,
  inRange: 0,
});

function addTo(s: Sums, r: ScoredOutcome, o: Outcome): void {
  if (r.status !== "ok" || r.value === undefined) {
    s.predicted++;
    return;
  }
  if (!o.exact) {
    // A killed job: only a recommendation at or below what it had is a sure miss; above it, the
    // job's need is unknown and it is not scored.
    if (r.value > o.actual) return;
    s.predicted++;
    s.recommended++;
    s.under++;
    s.sumActual += o.actual;
    s.underActual += o.actual;
    return;
  }
  s.predicted++;
  s.recommended++;
  s.sumActual += o.actual;
  s.over += Math.max(r.value - o.actual, 0);
  if (r.value < o.actual) {
    s.under++;
    s.underActual += o.actual;
  }
  if (r.requested !== undefined && r.requested > 0) {
    s.requestOver += Math.max(r.requested - o.actual, 0);
    s.requestActual += o.actual;
  }
  if (r.low !== undefined && r.high !== undefined) {
    s.withRange++;
    if (r.low <= o.actual && o.actual <= r.high) s.inRange++;
  }
}

function toSlice(resource: ResourceName, s: Sums, partition?: string, week?: string): AccuracySlice {
  const slice: AccuracySlice = {
    resource,
    predicted: s.predicted,
    recommended: s.recommended,
    coverage: s.predicted > 0 ? s.recommended / s.predicted : 0,
    underPredictionRate: s.recommended > 0 ? s.under / s.recommended : 0,
    weightedUnderPredictionRate: s.sumActual > 0 ? s.underActual / s.sumActual : 0,
    slack: s.sumActual > 0 ? s.over / s.sumActual : 0,
  };
  if (partition !== undefined) slice.partition = partition;
  if (week !== undefined) slice.weekStart = week;
  if (s.requestActual > 0) slice.requestSlack = s.requestOver / s.requestActual;
  if (s.withRange > 0) slice.rangeCoverage = s.inRange / s.withRange;
  return slice;
}

/**
 * The EVALUATION.md figures of recorded predictions against what their jobs then did: one slice
 * per resource over everything, then per resource and partition, then per resource and week (of
 * the job's submission). Scored on the model's own recommendation, rounded for the scheduler
 * and before the policy, on completed jobs, plus jobs killed for that very resource when the
 * recommendation was no more than what they had (a sure under-prediction).
 *
 * @example
 * ```ts
 * const slices = accuracySlices(linkPredictions(predictions, jobs));
 * ```
 */
export function accuracySlices(pairs: readonly LinkedPrediction[]): AccuracySlice[] {
  const overall = new Map<ResourceName, Sums>();
  const byPartition = new Map<string, Sums>();
  const byWeek = new Map<string, Sums>();
  const get = (map: Map<string, Sums>, key: string) => {
    let s = map.get(key);
    if (!s) {
      s = empty();
      map.set(key, s);
    }
    return s;
  };
  for (const { prediction, job } of pairs) {
    const week = weekStart(job.submittedAt);
    const partition = job.spec.partition ?? prediction.partition;
    for (const r of prediction.recommendations) {
      const o = outcomeOf(job, r.resource);
      if (!o) continue;
      addTo(get(overall as Map<string, Sums>, r.resource), r, o);
      if (partition !== undefined) addTo(get(byPartition, `${r.resource}\u0000${partition}`), r, o);
      addTo(get(byWeek, `${r.resource}\u0000${week}`), r, o);
    }
  }
  const slices: AccuracySlice[] = [];
  for (const resource of ALL_RESOURCES) {
    const s = overall.get(resource);
    if (s) slices.push(toSlice(resource, s));
  }
  const keyed = (map: Map<string, Sums>, asPartition: boolean) => {
    for (const [key, s] of [...map.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      const [resource, value] = key.split("\u0000") as [ResourceName, string];
      slices.push(asPartition ? toSlice(resource, s, value) : toSlice(resource, s, undefined, value));
    }
  };
  keyed(byPartition, true);
  keyed(byWeek, false);
  return slices;
}
