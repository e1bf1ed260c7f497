import type { ResourceName } from "@jobsight/schemas";
import type { ConformalTable } from "../calibration/conformal-table.js";
import type { TreeEnsemble } from "./tree-ensemble.js";

/**
 * Everything needed to predict one resource, as plain JSON-serialisable data: two quantile tree
 * ensembles on the log of the resource (centre and upper quantile, whose gap is the job's own
 * spread) and the conformal table that turns them into calibrated bounds.
 */
export type ResourceModel = {
  resource: ResourceName;
  featureNames: string[];
  /** Median of log(usage). */
  centre: TreeEnsemble;
  /** Upper quantile of log(usage); `upper − centre` is the per-job spread. */
  upper: TreeEnsemble;
  /** Its `enforcedLimit` says whether the cluster kills jobs at their request. */
  calibration: ConformalTable;
  /**
   * Log of the largest usage seen in training plus a margin (×2): a value above it rests on an
   * extrapolation of the spread, not on evidence, so the predictor abstains instead.
   */
  maxLogValue: number;
  /** Fewest completed jobs of the user before a recommendation is given. */
  minUserJobs: number;
  /** Unix time (s) the training data ends at. */
  trainedAt: number;
  /**
   * End (unix s) of the last job the ensembles trained on: any job that ended after it is one they
   * never saw, fit to calibrate on. Absent in models trained before recalibration existed.
   */
  trainingEnd?: number;
  /** Unix time (s) of the newest job the calibration has seen (`trainedAt` until recalibrated). */
  calibratedAt?: number;
  trainingJobs: number;
  censoredTrainingJobs: number;
};

/** Spread below which the upper model is not trusted (log scale). */
export const MIN_SPREAD = 0.02;

/** Centre and spread of one row under a model. */
export function centreAndSpread(
  model: Pick<ResourceModel, "centre" | "upper">,
  evaluate: (e: TreeEnsemble) => number,
): { m: number; s: number } {
  const m = evaluate(model.centre);
  const u = evaluate(model.upper);
  return { m, s: Math.max(u - m, MIN_SPREAD) };
}
