import { fitConformal, keptShare } from "../../calibration/conformal.js";
import type { CalibrationExample } from "../../calibration/conformal-table.js";
import { DELIVERED_JOBS, recordDelivered, withDelivered } from "../../calibration/delivered-confidence.js";
import type { FeatureTable } from "../../features/feature-table.js";
import { describeLevel } from "../../features/group-keys.js";
import type { ResourceModel } from "../../model/resource-model.js";
import { predictResource, type ResourcePrediction } from "../../serving/predictor.js";
import {
  calibrationExamples,
  type TrainResourceModelOptions,
  trainResourceModel,
} from "../../training/train-resource-model.js";

/** Options of {@link runModelProtocol}. */
export type ProtocolOptions = {
  /**
   * Share of the jobs, the last by submit time, that are evaluated.
   * @default 0.3
   */
  window?: number;
  /**
   * Simulated time between two trainings, in seconds. Weekly: the server retrains daily by default,
   * and a model a month old lags a site's drift far more than one a week old (on CEA-Curie walltime
   * the under-predicted share of the work fell from 3.2% to 2.5% and the range coverage rose from
   * 85.9% to 87.2%), so a monthly replay would understate what the site will see.
   * @default 604800 (7 days)
   */
  retrainEverySeconds?: number;
  /**
   * Simulated time between two recalibrations on the jobs that ended since, in seconds.
   * @default 86400
   */
  recalibrateEverySeconds?: number;
  training?: TrainResourceModelOptions;
  /** Called after each training with the share of the evaluation window done. */
  onProgress?: (done: number, total: number) => void;
};

/** The model's answer for every evaluated job, and the models it trained. */
export type ProtocolResult = {
  firstEvaluated: number;
  predictions: ResourcePrediction[];
  /** `trainingOf[k]`: the training (from 1) whose model made `predictions[k]`. */
  trainingOf: Int32Array;
  trainings: number;
  lastModel?: ResourceModel;
  trainSeconds: number;
};

/** Index of the first evaluated job: the last `window` share of the jobs. */
export function firstEvaluatedIndex(rows: number, window: number): number {
  return Math.floor(rows * (1 - window) + 1e-9);
}

/**
 * Replays the evaluation window: each job is predicted by the model trained on the jobs that had
 * ended at the last retraining (never later than the job's submission), calibrated on held-out
 * jobs plus those that ended since, again only before the job's submission.
 *
 * @example
 * ```ts
 * const { predictions } = runModelProtocol(buildFeatureTable(jobs, resourceSpec("memory")));
 * ```
 */
export function runModelProtocol(table: FeatureTable, options: ProtocolOptions = {}): ProtocolResult {
  const n = table.rows;
  const first = firstEvaluatedIndex(n, options.window ?? 0.3);
  const retrainEvery = options.retrainEverySeconds ?? 7 * 86_400;
  const recalEvery = options.recalibrateEverySeconds ?? 86_400;
  const maxCal = options.training?.maxCalibration ?? 15_000;
  const byEnd: number[] = [];
  for (let i = 0; i < n; i++) if (!Number.isNaN(table.y[i])) byEnd.push(i);
  byEnd.sort((a, b) => table.end[a] - table.end[b] || a - b);
  const predictions: ResourcePrediction[] = [];
  const trainingOf = new Int32Array(Math.max(0, n - first));
  let model: ResourceModel | undefined;
  let pool: CalibrationExample[] = [];
  let trainedAt = Number.NEGATIVE_INFINITY;
  let calibratedAt = Number.NEGATIVE_INFINITY;
  let next = 0;
  let trainings = 0;
  let trainSeconds = 0;
  const F = table.featureNames.length;
  const delivered = { maxJobs: options.training?.deliveredJobs ?? DELIVERED_JOBS };
  // Calibration examples, under `served`, of the jobs that ended since the last calibration.
  const ended = (served: ResourceModel, now: number): CalibrationExample[] => {
    const rows: number[] = [];
    while (next < byEnd.length && table.end[byEnd[next]] < now) rows.push(byEnd[next++]);
    return calibrationExamples(served, table, rows);
  };
  for (let i = first; i < n; i++) {
    const now = table.submit[i];
    if (!model || now >= trainedAt + retrainEvery) {
      const t0 = performance.now();
      const trained = trainResourceModel(table, now, options.training);
      trainSeconds += (performance.now() - t0) / 1000;
      // What the model in service delivered on the jobs that ended since, carried to the new one.
      const record = model ? recordDelivered(model.calibration, ended(model, now), delivered) : undefined;
      model = trained.model;
      if (record) model = { ...model, calibration: withDelivered(model.calibration, record, delivered) };
      pool = calibrationExamples(model, table, trained.calibrationRows);
      trainedAt = now;
      calibratedAt = now;
      trainings++;
      next = 0;
      while (next < byEnd.length && table.end[byEnd[next]] < now) next++;
      options.onProgress?.(i - first, n - first);
    } else if (now >= calibratedAt + recalEvery) {
      const fresh = ended(model, now);
      const record = recordDelivered(model.calibration, fresh, delivered);
      pool = pool.concat(fresh);
      if (pool.length > maxCal) pool = pool.slice(pool.length - maxCal);
      const refitted = fitConformal(
        pool,
        options.training?.conformal,
        model.calibration.enforcedLimit,
        keptShare(model.calibration),
      );
      model = { ...model, calibration: withDelivered(refitted, record, delivered) };
      calibratedAt = now;
    }
    const level = table.evidenceLevel[i];
    trainingOf[i - first] = trainings;
    predictions.push(
      predictResource(model, table.x.subarray(i * F, (i + 1) * F), {
        request: table.request[i],
        userJobs: table.userJobs[i],
        evidence:
          level >= 0
            ? {
                group: describeLevel(level),
                jobs: table.evidenceJobs[i],
                censoredJobs: table.evidenceCensored[i],
                since: table.evidenceSince[i],
              }
            : undefined,
      }),
    );
  }
  options.onProgress?.(n - first, n - first);
  return { firstEvaluated: first, predictions, trainingOf, trainings, lastModel: model, trainSeconds };
}
