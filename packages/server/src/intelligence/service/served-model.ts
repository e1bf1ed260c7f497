import { FEATURE_NAMES } from "../features/group-features.js";
import type { ResourceName } from "../history-job.js";
import type { ResourceModel } from "../model/resource-model.js";
import { evaluateEnsemble } from "../model/tree-ensemble.js";
import { OnnxModelRunner } from "../onnx/onnx-model-runner.js";
import type { ModelManifest } from "./model-manifest.js";

/** How the tree ensembles are evaluated: ONNX Runtime (served) or the TypeScript trees (reference). */
export type Engine = "onnx" | "typescript";

/** The centre and upper quantile (log scale) of each row. */
export type EnsembleOutputs = { centre: ArrayLike<number>; upper: ArrayLike<number> };

/**
 * A model in service: its manifest and one ONNX Runtime session per resource. Rows go through
 * ONNX Runtime; the TypeScript evaluation of the same trees is kept as the reference the tests
 * hold ONNX to.
 *
 * @example
 * ```ts
 * const served = await ServedModel.load(manifest, (sha) => registry.bytes(sha));
 * const { centre, upper } = await served.evaluate("memory", rows, 2);
 * ```
 */
export class ServedModel {
  private constructor(
    readonly manifest: ModelManifest,
    private readonly runners: Map<ResourceName, OnnxModelRunner>,
  ) {}

  /** Version of the model. */
  get version(): string {
    return this.manifest.version;
  }

  /**
   * Loads the ONNX files of every resource. Throws {@link IncompatibleModelError} when the model
   * reads other features than this server computes (trained by another version).
   */
  static async load(
    manifest: ModelManifest,
    readFile: (sha256: string) => Promise<Uint8Array>,
    options: { intraOpNumThreads?: number } = {},
  ): Promise<ServedModel> {
    const runners = new Map<ResourceName, OnnxModelRunner>();
    try {
      for (const [name, r] of Object.entries(manifest.resources) as [
        ResourceName,
        { onnxSha256: string; model: ResourceModel },
      ][]) {
        const names = r.model.featureNames;
        if (names.length !== FEATURE_NAMES.length || names.some((n, i) => n !== FEATURE_NAMES[i])) {
          throw new IncompatibleModelError(manifest.version, name);
        }
        const runner = await OnnxModelRunner.load(await readFile(r.onnxSha256), {
          intraOpNumThreads: options.intraOpNumThreads ?? 1,
        });
        runners.set(name, runner);
      }
    } catch (error) {
      await Promise.all([...runners.values()].map((r) => r.close()));
      throw error;
    }
    return new ServedModel(manifest, runners);
  }

  /** The trained model of a resource, or undefined when the model has none. */
  model(resource: ResourceName): ResourceModel | undefined {
    return this.manifest.resources[resource]?.model;
  }

  /** Centre and upper quantile of `count` rows (row-major, {@link FEATURE_NAMES} wide). */
  async evaluate(
    resource: ResourceName,
    rows: Float32Array,
    count: number,
    engine: Engine = "onnx",
  ): Promise<EnsembleOutputs> {
    const model = this.model(resource);
    const runner = this.runners.get(resource);
    if (!model || !runner) throw new RangeError(`model ${this.version} has no ${resource} model`);
    const F = FEATURE_NAMES.length;
    if (engine === "typescript") {
      const centre = new Float64Array(count);
      const upper = new Float64Array(count);
      for (let i = 0; i < count; i++) {
        const row = rows.subarray(i * F, (i + 1) * F);
        centre[i] = evaluateEnsemble(model.centre, row);
        upper[i] = evaluateEnsemble(model.upper, row);
      }
      return { centre, upper };
    }
    // ONNX Runtime's own float32 outputs, read as they are: a copy per request was only garbage.
    const out = await runner.runTyped(rows.subarray(0, count * F), F);
    return { centre: out.centre, upper: out.upper };
  }

  /** Frees the ONNX Runtime sessions (after calls in flight). */
  async close(): Promise<void> {
    await Promise.all([...this.runners.values()].map((r) => r.close()));
  }
}

/** A stored model reads features this server does not compute; it must be retrained. */
export class IncompatibleModelError extends Error {
  readonly code = "MODEL_INCOMPATIBLE";
  constructor(version: string, resource: string) {
    super(`model ${version} (${resource}) was trained on other features than this server computes; retrain`);
    this.name = "IncompatibleModelError";
  }
}
