import { type ConformalOptions, fitConformal } from "../calibration/conformal.js";
import type { CalibrationExample } from "../calibration/conformal-table.js";
import { detectEnforcedLimit } from "../calibration/enforced-limit.js";
import type { FeatureTable } from "../features/feature-table.js";
import { groupRecord, groupSpread, recentNeedFloor, requestHeld } from "../model/recent-need.js";
import { centreAndSpread, type ResourceModel } from "../model/resource-model.js";
import { evaluateEnsemble } from "../model/tree-ensemble.js";
import { resourceSpec } from "../resources.js";
import { FeatureBins } from "./feature-bins.js";
import { trainEnsembles } from "./train-ensembles.js";

/** Options of {@link trainResourceModel}. */
export type TrainResourceModelOptions = {
  /**
   * Boosting rounds of each of the two ensembles.
   * @default 100
   */
  trees?: number;
  /**
   * Depth of the trees.
   * @default 6
   */
  maxDepth?: number;
  /**
   * Quantile of the upper ensemble; its gap to the median is the job's spread.
   * @default 0.9
   */
  upperQuantile?: number;
  /**
   * Most recent labelled jobs the ensembles train on (older ones are left out for speed).
   * @default 100000
   */
  maxTrainingRows?: number;
  /**
   * Share of the most recently ended jobs held out of training to calibrate on.
   * @default 0.2
   */
  calibrationShare?: number;
  /**
   * Most jobs held out for calibration.
   * @default 15000
   */
  maxCalibration?: number;
  /**
   * Most ended jobs the record of what the served confidences delivered weighs, older ones
   * scaled down: fewer follow the site's drift sooner, but restate small buckets more noisily.
   * @default 15000 (`DELIVERED_JOBS`)
   */
  deliveredJobs?: number;
  /**
   * Fewest completed jobs of a user before recommending.
   * @default 3
   */
  minUserJobs?: number;
  /** Conformal calibration options. */
  conformal?: ConformalOptions;
  /**
   * Fewest training rows at which the upper ensemble trains on a worker thread beside the centre
   * (`Infinity`: never); the models are the same either way.
   * @default 20000
   */
  parallelFromRows?: number;
};

/** A trained model and the held-out jobs it was calibrated on (row indices of the table). */
export type TrainedResourceModel = { model: ResourceModel; calibrationRows: number[] };

/**
 * Trains the model of one resource on the jobs of `table` that ended before `endedBefore`: the most
 * recent share is held out and used to calibrate, everything older trains the two ensembles.
 *
 * @example
 * ```ts
 * const { model } = trainResourceModel(table, Date.now() / 1000);
 * ```
 */
export function trainResourceModel(
  table: FeatureTable,
  endedBefore: number,
  options: TrainResourceModelOptions = {},
): TrainedResourceModel {
  const labelled: number[] = [];
  for (let i = 0; i < table.rows; i++) {
    if (table.end[i] < endedBefore && !Number.isNaN(table.y[i])) labelled.push(i);
  }
  labelled.sort((a, b) => table.end[a] - table.end[b] || a - b);
  const calCount = Math.min(
    options.maxCalibration ?? 15_000,
    Math.floor(labelled.length * (options.calibrationShare ?? 0.2)),
  );
  const calibrationRows = labelled.slice(labelled.length - calCount);
  const trainRows = labelled
    .slice(0, labelled.length - calCount)
    .slice(-(options.maxTrainingRows ?? 100_000));
  const F = table.featureNames.length;
  const y = new Float64Array(trainRows.length);
  const censored = new Uint8Array(trainRows.length);
  let censoredCount = 0;
  trainRows.forEach((i, k) => {
    y[k] = table.y[i];
    censored[k] = table.censored[i];
    censoredCount += censored[k];
  });
  // Binned straight from the table: the training rows' features are never copied.
  const bins = new FeatureBins(table.x, trainRows.length, F, 64, trainRows);
  const data = { y, censored, featureNames: table.featureNames, bins };
  const common = { trees: options.trees ?? 100, maxDepth: options.maxDepth ?? 6 };
  const keepRequestAbove =
    options.conformal?.keepRequestAbove ?? resourceSpec(table.resource).keepRequestAbove;
  const [centre, upper] = trainEnsembles(
    data,
    [
      { ...common, quantile: 0.5, seed: 1 },
      { ...common, quantile: options.upperQuantile ?? 0.9, seed: 2 },
    ],
    { parallelFromRows: options.parallelFromRows },
  );
  const model: ResourceModel = {
    resource: table.resource,
    featureNames: table.featureNames,
    centre,
    upper,
    calibration: fitConformal(
      [],
      options.conformal,
      detectEnforcedLimit(table.y, table.logRequest, table.censored, labelled),
      keepRequestAbove,
    ),
    maxLogValue: maxOf(table.y, labelled) + Math.LN2,
    minUserJobs: options.minUserJobs ?? 3,
    trainedAt: endedBefore,
    trainingEnd: trainRows.length > 0 ? table.end[trainRows[trainRows.length - 1]] : Number.NEGATIVE_INFINITY,
    trainingJobs: trainRows.length,
    censoredTrainingJobs: censoredCount,
  };
  model.calibration = fitConformal(
    calibrationExamples(model, table, calibrationRows),
    options.conformal,
    model.calibration.enforcedLimit,
    keepRequestAbove,
  );
  return { model, calibrationRows };
}

/** Calibration examples of some rows: completed jobs of users with enough history only. */
export function calibrationExamples(
  model: ResourceModel,
  table: FeatureTable,
  rows: number[],
): CalibrationExample[] {
  const F = table.featureNames.length;
  const out: CalibrationExample[] = [];
  for (const i of rows) {
    if (table.censored[i] || Number.isNaN(table.y[i]) || table.userJobs[i] < model.minUserJobs) continue;
    const row = table.x.subarray(i * F, (i + 1) * F);
    const { m, s } = centreAndSpread(model, (e) => evaluateEnsemble(e, row));
    const logRequest = table.logRequest[i];
    out.push({
      m,
      s,
      y: table.y[i],
      logRequest,
      need: recentNeedFloor(model, row, logRequest),
      held: requestHeld(model, row, logRequest),
      group: groupRecord(model, row),
      groupSpread: groupSpread(model, row),
    });
  }
  return out;
}

function maxOf(y: Float64Array, rows: number[]): number {
  let max = Number.NEGATIVE_INFINITY;
  for (const i of rows) if (y[i] > max) max = y[i];
  return Number.isFinite(max) ? max : Number.MAX_VALUE;
}
