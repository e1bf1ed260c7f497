import type { AccuracySlice } from "@jobsight/schemas";

/**
 * When recorded accuracy is good enough to go live. The miss rates are looser than the backtest
 * goals of EVALUATION.md (1% jobs, 2% usage) because a few weeks of a site's jobs are a small
 * sample; the slack must beat what users ask for themselves, or there is nothing to gain.
 */
export type ReadinessThresholds = {
  /** Fewest ended jobs with a recorded prediction. @default 200 */
  minEndedJobs: number;
  /** Fewest days between the first and the last of them. @default 14 */
  minSpanDays: number;
  /** A resource is judged once it has this many scored jobs. @default 50 */
  minJobsPerResource: number;
  /** Highest share of recommended jobs that needed more. @default 0.02 */
  maxUnderPredictionRate: number;
  /** Highest share of used resource in under-predicted jobs. @default 0.03 */
  maxWeightedUnderPredictionRate: number;
  /** Lowest share of jobs that got a recommendation. @default 0.5 */
  minCoverage: number;
};

/** The defaults of {@link ReadinessThresholds}, the one documented place for them. */
export const READINESS_THRESHOLDS: ReadinessThresholds = {
  minEndedJobs: 200,
  minSpanDays: 14,
  minJobsPerResource: 50,
  maxUnderPredictionRate: 0.02,
  maxWeightedUnderPredictionRate: 0.03,
  minCoverage: 0.5,
};

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** What the readiness verdict looks at besides the slices. */
export type ReadinessInput = {
  /** Overall slices (no partition, no week), one per resource. */
  overall: readonly AccuracySlice[];
  /** Distinct ended jobs with a linked prediction. */
  endedJobs: number;
  /** Days from the first to the last of those jobs' submissions. */
  spanDays: number;
};

/**
 * Whether the site is ready to go live, with every reason: enough ended jobs over enough days,
 * and per resource with enough scored jobs, under-prediction (jobs and usage) and coverage within
 * the thresholds and less slack than the users' own requests.
 *
 * @example
 * ```ts
 * readiness({ overall, endedJobs: 1200, spanDays: 30 }); // { ready: true, reasons: ["memory: …"] }
 * ```
 */
export function readiness(
  input: ReadinessInput,
  t: ReadinessThresholds = READINESS_THRESHOLDS,
): { ready: boolean; reasons: string[] } {
  const failures: string[] = [];
  const passes: string[] = [];
  if (input.endedJobs < t.minEndedJobs) {
    failures.push(
      `only ${input.endedJobs} ended jobs have a recorded prediction; ${t.minEndedJobs} are needed`,
    );
  }
  if (input.spanDays < t.minSpanDays) {
    failures.push(`predictions cover ${input.spanDays.toFixed(1)} days of jobs; ${t.minSpanDays} are needed`);
  }
  const judged = input.overall.filter((s) => s.predicted >= t.minJobsPerResource);
  if (judged.length === 0) failures.push(`no resource has ${t.minJobsPerResource} scored jobs yet`);
  for (const s of judged) {
    const r = s.resource;
    const before = failures.length;
    if (s.underPredictionRate > t.maxUnderPredictionRate) {
      failures.push(
        `${r}: ${pct(s.underPredictionRate)} of recommended jobs needed more (at most ${pct(t.maxUnderPredictionRate)})`,
      );
    }
    if (s.weightedUnderPredictionRate > t.maxWeightedUnderPredictionRate) {
      failures.push(
        `${r}: ${pct(s.weightedUnderPredictionRate)} of the ${r} used was in under-predicted jobs (at most ${pct(t.maxWeightedUnderPredictionRate)})`,
      );
    }
    if (s.coverage < t.minCoverage) {
      failures.push(`${r}: ${pct(s.coverage)} of jobs got a recommendation (at least ${pct(t.minCoverage)})`);
    }
    if (s.requestSlack !== undefined && s.slack >= s.requestSlack) {
      failures.push(
        `${r}: slack ${pct(s.slack)} is no better than the users' requests (${pct(s.requestSlack)})`,
      );
    }
    if (failures.length === before) {
      passes.push(
        `${r}: ${s.predicted} jobs, coverage ${pct(s.coverage)}, under-prediction ${pct(s.underPredictionRate)}, slack ${pct(s.slack)}${s.requestSlack !== undefined ? ` (requests ${pct(s.requestSlack)})` : ""}`,
      );
    }
  }
  return failures.length > 0 ? { ready: false, reasons: failures } : { ready: true, reasons: passes };
}
