import type { ResourceName } from "@jobsight/schemas";
import { withTryAdvisoryLock } from "../../data-plane/storage/advisory-lock.js";
import type { SqlPool } from "../../data-plane/storage/database.js";
import type { ArtifactStore } from "../../data-plane/stores/artifact-store.js";
import type { ModelManifest } from "../registry/model-manifest.js";
import type { ModelRegistry } from "../registry/model-registry.js";
import { lineageOf, recalibratedVersion } from "../registry/model-version.js";
import { historyPages, registerModel, TRAINING_LOCK, type TrainRun } from "./model-trainer.js";
import type { TrainResourceModelOptions } from "./train-resource-model.js";
import { runTask, type TrainingPlace } from "./training-runner.js";

/** How a recalibration runs; plain settings of the service. */
export type RecalibrateSettings = {
  place: TrainingPlace;
  training?: TrainResourceModelOptions;
  /** Fewest jobs ended since the last calibration (all resources) worth a new calibration. */
  minNewJobs: number;
  pageSize: number;
};

/** What one recalibration did. */
export type RecalibrationReport = {
  recalibrated: boolean;
  /** The new version, when recalibrated. */
  version?: string;
  /** The version recalibrated. */
  from?: string;
  /** Completed jobs per resource that ended since the previous calibration. */
  newJobs: Partial<Record<ResourceName, number>>;
  seconds?: number;
  /** Why nothing was recalibrated. */
  reason?: string;
};

/**
 * Refits the calibration of the model in service on the jobs that ended since it was calibrated
 * (its trees unchanged) and puts the result into service as the next calibration revision of the
 * same trees (`<trained>.c<n>`), so that advice follows the site's drift between trainings. Runs
 * under the training lock, and only while `active` is still the model in service.
 *
 * @example
 * ```ts
 * const report = await recalibrateAndRegister(pool, registry, artifacts, served.manifest, settings, { trigger: "schedule", now: new Date() });
 * ```
 */
export async function recalibrateAndRegister(
  pool: SqlPool,
  registry: ModelRegistry,
  artifacts: ArtifactStore,
  active: ModelManifest | undefined,
  settings: RecalibrateSettings,
  run: TrainRun,
): Promise<RecalibrationReport> {
  if (!active) return { recalibrated: false, newJobs: {}, reason: "no model in service" };
  const result = await withTryAdvisoryLock(pool, TRAINING_LOCK, () =>
    recalibrateLocked(pool, registry, artifacts, active, settings, run),
  );
  if (result.locked) return result.value;
  return { recalibrated: false, newJobs: {}, reason: "another server is training" };
}

async function recalibrateLocked(
  pool: SqlPool,
  registry: ModelRegistry,
  artifacts: ArtifactStore,
  active: ModelManifest,
  settings: RecalibrateSettings,
  run: TrainRun,
): Promise<RecalibrationReport> {
  const started = performance.now();
  const current = await registry.active();
  // Another server may have put a newer model into service since this one loaded `active`.
  if (current?.version !== active.version) {
    return { recalibrated: false, newJobs: {}, reason: "the model in service changed; nothing recalibrated" };
  }
  const version = await freeRevision(registry, active.version);
  const result = await runTask(
    historyPages(pool, settings.pageSize, { jobs: 0 }),
    {
      kind: "recalibrate",
      options: {
        version,
        createdAt: run.now.toISOString(),
        base: active,
        training: settings.training,
        minNewJobs: settings.minNewJobs,
      },
    },
    { place: settings.place, signal: run.signal, onProgress: run.onProgress, onInline: run.onInline },
  );
  const fresh = Object.values(result.newJobs).reduce((a, b) => a + (b ?? 0), 0);
  if (!result.manifest) {
    return {
      recalibrated: false,
      from: active.version,
      newJobs: result.newJobs,
      reason: `${fresh} jobs ended since the last calibration (${settings.minNewJobs} needed)`,
    };
  }
  const manifest = result.manifest;
  const seconds = (performance.now() - started) / 1000;
  const decision = {
    accepted: true,
    comparedWith: active.version,
    reasons: [`calibration refitted on ${fresh} jobs that ended since the last calibration; trees unchanged`],
  };
  // Only the manifest is new: the ONNX files are the trained version's, already stored.
  await registerModel(
    registry,
    artifacts,
    manifest,
    {},
    { trigger: "recalibration", decision, trainSeconds: seconds },
    true,
  );
  return { recalibrated: true, version, from: active.version, newJobs: result.newJobs, seconds };
}

/** The next revision of a model's trees not yet in the registry (a rollback may have left one behind). */
async function freeRevision(registry: ModelRegistry, version: string): Promise<string> {
  let { trained, revision } = lineageOf(version);
  for (const row of await registry.list(1000)) {
    const lineage = lineageOf(row.version);
    if (lineage.trained === trained) revision = Math.max(revision, lineage.revision);
  }
  return recalibratedVersion(`${trained}.c${revision}`);
}
