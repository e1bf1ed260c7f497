import type { ResourceName } from "@jobsight/schemas";
import type { ResourceModel } from "../model/resource-model.js";

/** The format tag of a manifest; a server refuses manifests of another format. */
export const MANIFEST_FORMAT = "jobsight-model/1";

/** The EVALUATION.md figures of one predictor on the holdout jobs of one resource. */
export type BacktestFigures = {
  /** Completed jobs of the holdout with a measured value. */
  evaluated: number;
  recommended: number;
  coverage: number;
  underPredictionRate: number;
  weightedUnderPredictionRate: number;
  slack: number;
  /** Slack of the users' own requests on the same recommended jobs (when they requested). */
  requestSlack?: number;
  rangeCoverage?: number;
  nominalRangeCoverage?: number;
};

/** One resource of a trained model: where its ONNX file is, and everything around the trees. */
export type ManifestResource = {
  /** sha256 of the ONNX model (outputs `centre` and `upper`, input `features`). */
  onnxSha256: string;
  /** The full model as trained (trees, calibration, limits), for the TypeScript path and audits. */
  model: ResourceModel;
  /** Holdout backtest of the model trained before the holdout. */
  backtest?: BacktestFigures;
};

/**
 * What a trained model is, as stored in the object store beside its ONNX files: the data it was
 * trained on, its backtest, and per resource the ONNX file and the calibration that turns the
 * ONNX outputs into calibrated recommendations.
 */
export type ModelManifest = {
  format: typeof MANIFEST_FORMAT;
  version: string;
  createdAt: string;
  /** Submit time of the first and end time of the last training job (RFC 3339). */
  trainingDataRange: { start: string; end: string };
  trainingJobs: number;
  resources: Partial<Record<ResourceName, ManifestResource>>;
  /** Resources without a model, and how many usable jobs they had of how many needed. */
  skipped: Partial<Record<ResourceName, { jobs: number; needed: number }>>;
  /** Set on a recalibration: the trees are those of `trained`, the calibration is revision `revision`. */
  recalibration?: {
    trained: string;
    revision: number;
    /** Completed jobs per resource that ended since the previous calibration. */
    newJobs: Partial<Record<ResourceName, number>>;
  };
};

const NON_FINITE = "__number__";

/**
 * JSON of a manifest that keeps non-finite numbers (±Infinity, NaN) of the calibration tables,
 * which plain JSON would turn into `null`.
 *
 * @example
 * ```ts
 * const bytes = encodeManifest(manifest);
 * decodeManifest(bytes).resources.memory?.model.calibration;
 * ```
 */
export function encodeManifest(manifest: ModelManifest): Buffer {
  return Buffer.from(
    JSON.stringify(manifest, (_key, value) =>
      typeof value === "number" && !Number.isFinite(value) ? { [NON_FINITE]: String(value) } : value,
    ),
  );
}

/** Reads {@link encodeManifest}'s bytes; throws {@link ManifestError} on another format. */
export function decodeManifest(bytes: Uint8Array): ModelManifest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(bytes).toString("utf8"), (_key, value) =>
      value !== null && typeof value === "object" && NON_FINITE in value ? Number(value[NON_FINITE]) : value,
    );
  } catch (cause) {
    throw new ManifestError(`the manifest is not JSON: ${(cause as Error).message}`);
  }
  const m = parsed as Partial<ModelManifest>;
  if (m?.format !== MANIFEST_FORMAT) throw new ManifestError(`unknown manifest format ${String(m?.format)}`);
  if (typeof m.version !== "string" || typeof m.resources !== "object" || m.resources === null) {
    throw new ManifestError("the manifest has no version or resources");
  }
  return m as ModelManifest;
}

/** A stored model manifest that cannot be read. */
export class ManifestError extends Error {
  readonly code = "MODEL_MANIFEST_INVALID";
  constructor(message: string) {
    super(message);
    this.name = "ManifestError";
  }
}
