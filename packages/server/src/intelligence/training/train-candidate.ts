import type { ResourceName } from "@jobsight/schemas";
import { sha256Hex } from "../../data-plane/objects/object-store.js";
import { type HoldoutResult, holdoutBacktest } from "../accuracy/holdout-backtest.js";
import { DELIVERED_JOBS, withDelivered } from "../calibration/delivered-confidence.js";
import { buildFeatureTable, type FeatureTable } from "../features/feature-table.js";
import type { HistoryJob } from "../history-job.js";
import type { ResourceModel } from "../model/resource-model.js";
import { exportTreeEnsemblesToOnnx } from "../onnx/export-tree-ensemble.js";
import { MANIFEST_FORMAT, type ModelManifest } from "../registry/model-manifest.js";
import { ALL_RESOURCES, resourceSpec } from "../resources.js";
import { servedRecord } from "./served-record.js";
import { type TrainResourceModelOptions, trainResourceModel } from "./train-resource-model.js";
import { collectBetweenPhases } from "./training-heap.js";

/** Options of {@link trainCandidate}; plain data, so they cross into a worker thread. */
export type TrainCandidateOptions = {
  version: string;
  createdAt: string;
  /** Trainer options of the prediction helper (trees, depth, calibration…). */
  training?: TrainResourceModelOptions;
  /** Fewest completed jobs with a measured value before a resource gets a model. */
  minJobs: number;
  /** Share of the jobs (the last submitted) the quick backtest predicts; 0 skips the backtest. */
  holdoutShare: number;
  /** Fewest unseen holdout jobs to compare with the active model on the same jobs. */
  minComparisonJobs: number;
  /** The model in service, per resource, for the same-jobs comparison. */
  active?: Partial<Record<ResourceName, ResourceModel>>;
};

/** A trained candidate: its manifest (with the ONNX digests), the ONNX bytes, and the comparisons. */
export type CandidateResult = {
  manifest: ModelManifest;
  onnx: Partial<Record<ResourceName, Uint8Array>>;
  sameJobs: Partial<Record<ResourceName, NonNullable<HoldoutResult["sameJobs"]>>>;
  trainSeconds: number;
};

const iso = (unixSeconds: number) => new Date(Math.round(unixSeconds * 1000)).toISOString();

/**
 * Trains a candidate model on ended jobs sorted by submit time: per resource with enough
 * completed jobs, a quick holdout backtest, then the model on all the jobs, exported to ONNX
 * (outputs `centre` and `upper` over the input `features`). CPU-bound: the service runs it in a
 * worker thread so predictions go on meanwhile.
 *
 * @example
 * ```ts
 * const { manifest, onnx } = trainCandidate(jobs, { version: "v1", createdAt, minJobs: 500, holdoutShare: 0.15, minComparisonJobs: 100 });
 * ```
 */
export function trainCandidate(
  jobs: readonly HistoryJob[],
  options: TrainCandidateOptions,
  onProgress: (phase: string, done: number) => void = () => {},
): CandidateResult {
  const started = performance.now();
  let firstSubmit = Number.POSITIVE_INFINITY;
  let lastEnd = Number.NEGATIVE_INFINITY;
  for (const j of jobs) {
    firstSubmit = Math.min(firstSubmit, j.submitTime);
    lastEnd = Math.max(lastEnd, j.endTime);
  }
  const range =
    jobs.length > 0
      ? { start: iso(firstSubmit), end: iso(lastEnd) }
      : { start: options.createdAt, end: options.createdAt };
  const manifest: ModelManifest = {
    format: MANIFEST_FORMAT,
    version: options.version,
    createdAt: options.createdAt,
    trainingDataRange: range,
    trainingJobs: jobs.length,
    resources: {},
    skipped: {},
  };
  const onnx: CandidateResult["onnx"] = {};
  const sameJobs: CandidateResult["sameJobs"] = {};
  // One table's memory for all resources: nothing kept below holds on to the table.
  let table: FeatureTable | undefined;
  ALL_RESOURCES.forEach((name, k) => {
    onProgress(name, k / ALL_RESOURCES.length);
    const spec = resourceSpec(name);
    let usable = 0;
    for (const j of jobs) if (j.outcome === "completed" && spec.target(j) !== undefined) usable++;
    if (usable < options.minJobs) {
      manifest.skipped[name] = { jobs: usable, needed: options.minJobs };
      return;
    }
    collectBetweenPhases();
    table = buildFeatureTable(jobs, spec, { reuse: table });
    collectBetweenPhases();
    let holdout: HoldoutResult | undefined;
    if (options.holdoutShare > 0) {
      holdout = holdoutBacktest(jobs, table, spec, {
        holdoutShare: options.holdoutShare,
        training: options.training,
        active: options.active?.[name],
        minComparisonJobs: options.minComparisonJobs,
      });
      if (holdout.sameJobs) sameJobs[name] = holdout.sameJobs;
    }
    collectBetweenPhases();
    // Trained up to just after the last end, so `trainedAt` stays a finite time in the manifest.
    const trained = trainResourceModel(table, lastEnd + 1, options.training).model;
    // What the model in service stated and delivered carries over, so the confidences stay measured.
    const active = options.active?.[name];
    const maxJobs = options.training?.deliveredJobs ?? DELIVERED_JOBS;
    const record = active ? servedRecord(active, table, maxJobs) : undefined;
    const model = record ? { ...trained, calibration: withDelivered(trained.calibration, record) } : trained;
    const bytes = exportTreeEnsemblesToOnnx(
      [
        { name: "centre", ensemble: model.centre },
        { name: "upper", ensemble: model.upper },
      ],
      {
        modelVersion: `${options.version}/${name}`,
        trainingDataRange: range,
        metadata: { resource: name },
        graphName: `jobsight_${name}`,
      },
    );
    onnx[name] = bytes;
    manifest.resources[name] = {
      onnxSha256: sha256Hex(bytes),
      model,
      ...(holdout ? { backtest: holdout.figures } : {}),
    };
  });
  onProgress("done", 1);
  return { manifest, onnx, sameJobs, trainSeconds: (performance.now() - started) / 1000 };
}
