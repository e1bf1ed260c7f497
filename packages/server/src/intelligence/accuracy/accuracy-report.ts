import type { AccuracyReport } from "@jobsight/schemas";
import type { SqlPool } from "../../data-plane/storage/database.js";
import { predictionsSince } from "../../data-plane/stores/prediction-store.js";
import { endedJobsSubmittedBetween } from "../../data-plane/stores/stored-jobs.js";
import { type LinkWindow, linkPredictions } from "../recording/link-predictions.js";
import { type ReadinessThresholds, readiness } from "../serving/readiness.js";
import { accuracySlices } from "./accuracy-slices.js";
import type { ModeState } from "./shadow-mode.js";

/** What {@link buildAccuracyReport} needs besides the database. */
export type AccuracyReportSettings = {
  /** Predictions of the last this many days are compared. */
  days: number;
  link: LinkWindow;
  readiness: ReadinessThresholds;
  /** Most predictions (and jobs) read. */
  maxRows: number;
};

/**
 * Compares recorded predictions with what their jobs then did: links each prediction to its job
 * (see `linkPredictions`), scores per resource, per partition and per week, and says whether the
 * site is ready to go live and why.
 *
 * @example
 * ```ts
 * const report = await buildAccuracyReport(pool, "hpc1", new Date(), mode, settings);
 * report.readiness; // { ready: false, reasons: ["only 12 ended jobs have a recorded prediction; 200 are needed"] }
 * ```
 */
export async function buildAccuracyReport(
  pool: SqlPool,
  cluster: string | undefined,
  now: Date,
  mode: ModeState,
  settings: AccuracyReportSettings,
): Promise<AccuracyReport> {
  const from = now.getTime() / 1000 - settings.days * 86_400;
  const predictions = await predictionsSince(pool, from, cluster, settings.maxRows);
  const report: AccuracyReport = {
    generatedAt: now.toISOString(),
    mode: mode.mode,
    slices: [],
    readiness: { ready: false, reasons: ["no prediction has been recorded yet"] },
  };
  if (mode.shadowUntil) report.shadowUntil = mode.shadowUntil;
  if (predictions.length === 0) return report;
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const p of predictions) {
    const at = p.submitTime ?? p.createdAt;
    first = Math.min(first, at);
    last = Math.max(last, at);
  }
  const skew = settings.link.skewSeconds;
  const jobs = await endedJobsSubmittedBetween(
    pool,
    first - skew,
    last + settings.link.afterSeconds + skew,
    cluster,
    settings.maxRows,
  );
  const pairs = linkPredictions(predictions, jobs, settings.link);
  report.slices = accuracySlices(pairs);
  let firstJob = Number.POSITIVE_INFINITY;
  let lastJob = Number.NEGATIVE_INFINITY;
  for (const { job } of pairs) {
    firstJob = Math.min(firstJob, job.submittedAt);
    lastJob = Math.max(lastJob, job.submittedAt);
  }
  report.readiness = readiness(
    {
      overall: report.slices.filter((s) => s.partition === undefined && s.weekStart === undefined),
      endedJobs: pairs.length,
      spanDays: pairs.length > 0 ? (lastJob - firstJob) / 86_400 : 0,
    },
    settings.readiness,
  );
  return report;
}
