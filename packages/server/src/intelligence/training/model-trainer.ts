import type { ResourceName } from "@jobsight/schemas";
import { withTryAdvisoryLock } from "../../data-plane/storage/advisory-lock.js";
import type { SqlPool } from "../../data-plane/storage/database.js";
import type { ArtifactStore } from "../../data-plane/stores/artifact-store.js";
import { endedJobsPage } from "../../data-plane/stores/stored-jobs.js";
import {
  type ComparisonThresholds,
  compareBacktests,
  type ModelDecision,
  type ResourceComparison,
} from "../accuracy/compare-backtests.js";
import type { HistoryJob } from "../history-job.js";
import { storedJobToHistoryJob } from "../recording/record-to-history.js";
import type { BacktestFigures, ManifestResource, ModelManifest } from "../registry/model-manifest.js";
import type { ModelRegistry } from "../registry/model-registry.js";
import { newModelVersion } from "../registry/model-version.js";
import { ALL_RESOURCES } from "../resources.js";
import type { CandidateResult } from "./train-candidate.js";
import type { TrainResourceModelOptions } from "./train-resource-model.js";
import { runTraining, type TrainingPlace, type TrainingProgress } from "./training-runner.js";

/** What one training did. */
export type TrainReport = {
  /** False when nothing was trained (too few jobs, or another server was training). */
  trained: boolean;
  version?: string;
  /** Whether the new model went into service. */
  accepted: boolean;
  decision?: ModelDecision;
  jobs: number;
  resources: ResourceName[];
  backtest: Partial<Record<ResourceName, BacktestFigures>>;
  trainSeconds?: number;
  /** Why nothing was trained. */
  reason?: string;
};

/** How a training runs; plain settings of the service. */
export type TrainSettings = {
  place: TrainingPlace;
  training?: TrainResourceModelOptions;
  minJobs: number;
  holdoutShare: number;
  minComparisonJobs: number;
  comparison: ComparisonThresholds;
  pageSize: number;
};

/** One training: why it runs, its clock, how to stop it, where its progress goes. */
export type TrainRun = {
  trigger: string;
  now: Date;
  signal?: AbortSignal;
  onProgress?: TrainingProgress;
  /** Called when the training must run on the calling thread (no worker script in this build). */
  onInline?: () => void;
};

// One key for the whole deployment: only one server trains or recalibrates at a time.
export const TRAINING_LOCK = 0x6a6f6273; // "jobs"

/** The holdout figures of each resource of a manifest. */
export function backtestsOf(manifest: ModelManifest): TrainReport["backtest"] {
  const out: TrainReport["backtest"] = {};
  for (const [name, r] of Object.entries(manifest.resources) as [ResourceName, ManifestResource][]) {
    if (r.backtest) out[name] = r.backtest;
  }
  return out;
}

/**
 * Stores a model's files, links them as artifacts of kind `model` (so platform tokens can fetch
 * them over the API), and records its row from its manifest; `activate` puts it into service.
 */
export async function registerModel(
  registry: ModelRegistry,
  artifacts: ArtifactStore,
  manifest: ModelManifest,
  onnx: Partial<Record<ResourceName, Uint8Array>>,
  row: { trigger: string; decision: ModelDecision; trainSeconds: number },
  activate: boolean,
): Promise<void> {
  const files = await registry.storeFiles(manifest, onnx);
  for (const file of files)
    await artifacts.link({ ...file, kind: "model", uploadedBy: "jobsight-intelligence" });
  await registry.record(
    {
      version: manifest.version,
      ...row,
      manifestSha256: files[files.length - 1].sha256,
      resources: Object.keys(manifest.resources) as ResourceName[],
      trainingJobs: manifest.trainingJobs,
      dataStart: manifest.trainingDataRange.start,
      dataEnd: manifest.trainingDataRange.end,
      backtest: backtestsOf(manifest),
    },
    activate,
  );
}

/** Every ended job of the data plane, a page at a time, by submit time; `count.jobs` adds up what was read. */
export async function* historyPages(
  pool: SqlPool,
  pageSize: number,
  count: { jobs: number },
): AsyncGenerator<HistoryJob[]> {
  let page = await endedJobsPage(pool, "submitted", undefined, pageSize);
  for (;;) {
    count.jobs += page.jobs.length;
    yield page.jobs.map(storedJobToHistoryJob);
    if (!page.next) return;
    page = await endedJobsPage(pool, "submitted", page.next, pageSize);
  }
}

function comparisons(result: CandidateResult, active: ModelManifest | undefined) {
  const out: Partial<Record<ResourceName, ResourceComparison>> = {};
  for (const name of ALL_RESOURCES) {
    const same = result.sameJobs[name];
    const candidate = result.manifest.resources[name]?.backtest;
    const before = active?.resources[name]?.backtest;
    if (same) out[name] = { candidate: same.candidate, active: same.active, basis: "same_jobs" };
    else if (candidate || before) out[name] = { candidate, active: before, basis: "recorded" };
  }
  return out;
}

/**
 * Trains a new model on every ended job of the data plane, stores its files and its row, and
 * puts it into service unless it backtests worse than the active model (then it is recorded as
 * `rejected` and the active model stays). Only one server of a deployment trains at a time (a
 * PostgreSQL advisory lock); the others return at once with `trained: false`.
 *
 * @example
 * ```ts
 * const report = await trainAndRegister(pool, registry, artifacts, active, settings, { trigger: "demand" });
 * if (report.accepted) await serve(report.version);
 * ```
 */
export async function trainAndRegister(
  pool: SqlPool,
  registry: ModelRegistry,
  artifacts: ArtifactStore,
  active: ModelManifest | undefined,
  settings: TrainSettings,
  run: TrainRun,
): Promise<TrainReport> {
  const result = await withTryAdvisoryLock(pool, TRAINING_LOCK, () =>
    trainLocked(pool, registry, artifacts, active, settings, run),
  );
  if (result.locked) return result.value;
  return {
    trained: false,
    accepted: false,
    jobs: 0,
    resources: [],
    backtest: {},
    reason: "another server is training",
  };
}

async function trainLocked(
  pool: SqlPool,
  registry: ModelRegistry,
  artifacts: ArtifactStore,
  active: ModelManifest | undefined,
  settings: TrainSettings,
  run: TrainRun,
): Promise<TrainReport> {
  const version = newModelVersion(run.now);
  const count = { jobs: 0 };
  const activeModels: NonNullable<Parameters<typeof runTraining>[1]["active"]> = {};
  for (const name of ALL_RESOURCES) {
    const m = active?.resources[name]?.model;
    if (m) activeModels[name] = m;
  }
  const result = await runTraining(
    historyPages(pool, settings.pageSize, count),
    {
      version,
      createdAt: run.now.toISOString(),
      training: settings.training,
      minJobs: settings.minJobs,
      holdoutShare: settings.holdoutShare,
      minComparisonJobs: settings.minComparisonJobs,
      active: activeModels,
    },
    { place: settings.place, signal: run.signal, onProgress: run.onProgress, onInline: run.onInline },
  );
  const manifest = result.manifest;
  const resources = Object.keys(manifest.resources) as ResourceName[];
  const backtest = backtestsOf(manifest);
  if (resources.length === 0) {
    const needed = Object.entries(manifest.skipped).map(([r, s]) => `${r} ${s.jobs}/${s.needed}`);
    return {
      trained: false,
      accepted: false,
      jobs: count.jobs,
      resources,
      backtest,
      reason: `no resource has enough completed jobs with measured usage (${needed.join(", ")})`,
    };
  }
  const decision = compareBacktests(comparisons(result, active), active?.version, settings.comparison);
  await registerModel(
    registry,
    artifacts,
    manifest,
    result.onnx,
    { trigger: run.trigger, decision, trainSeconds: result.trainSeconds },
    decision.accepted,
  );
  return {
    trained: true,
    version,
    accepted: decision.accepted,
    decision,
    jobs: count.jobs,
    resources,
    backtest,
    trainSeconds: result.trainSeconds,
  };
}
