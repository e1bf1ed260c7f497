import type { ResourceName } from "@jobsight/schemas";
import { fitConformal, keptShare } from "../calibration/conformal.js";
import { DELIVERED_JOBS, withDelivered } from "../calibration/delivered-confidence.js";
import { buildFeatureTable } from "../features/feature-table.js";
import type { HistoryJob } from "../history-job.js";
import type { ManifestResource, ModelManifest } from "../registry/model-manifest.js";
import { lineageOf } from "../registry/model-version.js";
import { ALL_RESOURCES, resourceSpec } from "../resources.js";
import { servedRecord } from "./served-record.js";
import { calibrationExamples, type TrainResourceModelOptions } from "./train-resource-model.js";

/** Options of {@link recalibrateCandidate}; plain data, so they cross into a worker thread. */
export type RecalibrateCandidateOptions = {
  /** Version of the recalibrated model (see `recalibratedVersion`). */
  version: string;
  createdAt: string;
  /** The model in service, whose trees are kept and whose calibration is refitted. */
  base: ModelManifest;
  /** Trainer options: the calibration options and the most jobs a calibration keeps. */
  training?: TrainResourceModelOptions;
  /**
   * Fewest jobs ended since the last calibration, over all resources, for a recalibration to be worth
   * a new version; with fewer, nothing is recalibrated.
   */
  minNewJobs: number;
};

/** What a recalibration did: the new manifest (when anything changed) and the jobs it saw, per resource. */
export type RecalibrationResult = {
  /** Undefined when too few jobs had ended since the last calibration. */
  manifest?: ModelManifest;
  /** Completed jobs with a measured value that ended since the last calibration. */
  newJobs: Partial<Record<ResourceName, number>>;
  /** Calibration examples of each recalibrated resource. */
  examples: Partial<Record<ResourceName, number>>;
};

/**
 * Refits the calibration of every resource of the model in service on the jobs its trees never
 * saw, the newest first: those held out at training and those that ended since, the same pool the
 * backtest recalibrates on. The trees (and their ONNX files) are unchanged, so the advice follows
 * the site's drift between trainings at the cost of a table. The new manifest is the base's, with
 * `version`, and each model's `calibration` and `calibratedAt` replaced.
 *
 * @example
 * ```ts
 * const { manifest } = recalibrateCandidate(jobs, { version: recalibratedVersion(base.version), createdAt, base, minNewJobs: 50 });
 * ```
 */
export function recalibrateCandidate(
  jobs: readonly HistoryJob[],
  options: RecalibrateCandidateOptions,
): RecalibrationResult {
  const maxCalibration = options.training?.maxCalibration ?? 15_000;
  const newJobs: RecalibrationResult["newJobs"] = {};
  const examples: RecalibrationResult["examples"] = {};
  const resources: ModelManifest["resources"] = {};
  let lastEnd = Number.NEGATIVE_INFINITY;
  for (const j of jobs) lastEnd = Math.max(lastEnd, j.endTime);
  let fresh = 0;
  for (const name of ALL_RESOURCES) {
    const base = options.base.resources[name];
    if (!base) continue;
    const model = base.model;
    const table = buildFeatureTable(jobs, resourceSpec(name));
    const sameFeatures =
      table.featureNames.length === model.featureNames.length &&
      table.featureNames.every((f, i) => f === model.featureNames[i]);
    // Without the trees' last job, no job is known to be unseen by them: this resource stays as is.
    if (model.trainingEnd === undefined || !sameFeatures) {
      resources[name] = base;
      continue;
    }
    const since = model.calibratedAt ?? model.trainedAt;
    const unseen: number[] = [];
    const endedSince: number[] = [];
    for (let i = 0; i < table.rows; i++) {
      if (Number.isNaN(table.y[i]) || !(table.end[i] > model.trainingEnd)) continue;
      unseen.push(i);
      if (table.end[i] > since && !table.censored[i]) endedSince.push(i);
    }
    unseen.sort((a, b) => table.end[a] - table.end[b] || a - b);
    const pool = calibrationExamples(model, table, unseen.slice(-maxCalibration));
    newJobs[name] = endedSince.length;
    examples[name] = pool.length;
    fresh += endedSince.length;
    // What the table in service stated and delivered on the jobs that ended under it.
    const fitted = fitConformal(
      pool,
      options.training?.conformal,
      model.calibration.enforcedLimit,
      keptShare(model.calibration),
    );
    const record = servedRecord(model, table, options.training?.deliveredJobs ?? DELIVERED_JOBS);
    const calibration = record ? withDelivered(fitted, record) : fitted;
    const next: ManifestResource = {
      ...base,
      model: { ...model, calibration, calibratedAt: Math.max(since, lastEnd) },
    };
    resources[name] = next;
  }
  if (fresh < options.minNewJobs) return { newJobs, examples };
  const manifest: ModelManifest = {
    ...options.base,
    version: options.version,
    createdAt: options.createdAt,
    resources,
    recalibration: {
      trained: lineageOf(options.base.version).trained,
      revision: lineageOf(options.version).revision,
      newJobs,
    },
  };
  return { manifest, newJobs, examples };
}
