import type { ResourceName } from "@jobsight/schemas";
import { FEATURE_NAMES } from "../features/group-features.js";
import type { ResourceModel } from "../model/resource-model.js";
import { evaluateEnsemble } from "../model/tree-ensemble.js";
import { MergedModelRunner } from "../onnx/merged-model-runner.js";
import type { ModelManifest } from "./model-manifest.js";

/** How the tree ensembles are evaluated: ONNX Runtime (served) or the TypeScript trees (reference). */
export type Engine = "onnx" | "typescript";

/** The centre and upper quantile (log scale) of each row. */
export type EnsembleOutputs = { centre: ArrayLike<number>; upper: ArrayLike<number> };

/** Rows of one resource to evaluate: `count` rows, row-major, {@link FEATURE_NAMES} wide. */
export type EnsembleRows = { resource: ResourceName; rows: Float32Array; count: number };

/**
 * A model in service: its manifest and one ONNX Runtime session that holds every resource's ONNX
 * file side by side (merged, names prefixed by resource), so the rows of all resources of a
 * request are evaluated in one run. The TypeScript evaluation of the same trees is kept as the
 * reference the tests hold ONNX to.
 *
 * @example
 * ```ts
 * const served = await ServedModel.load(manifest, (sha) => registry.bytes(sha));
 * const [memory] = await served.evaluateMany([{ resource: "memory", rows, count: 2 }]);
 * memory.centre; // two values, log scale
 * ```
 */
export class ServedModel {
  private constructor(
    readonly manifest: ModelManifest,
    private readonly runner: MergedModelRunner | undefined,
  ) {}

  /** Version of the model. */
  get version(): string {
    return this.manifest.version;
  }

  /**
   * Loads the ONNX files of every resource into one session. Throws {@link IncompatibleModelError}
   * when the model reads other features than this server computes (trained by another version).
   */
  static async load(
    manifest: ModelManifest,
    readFile: (sha256: string) => Promise<Uint8Array>,
    options: { intraOpNumThreads?: number } = {},
  ): Promise<ServedModel> {
    const parts: { prefix: string; bytes: Uint8Array }[] = [];
    for (const [name, r] of Object.entries(manifest.resources) as [
      ResourceName,
      { onnxSha256: string; model: ResourceModel },
    ][]) {
      const names = r.model.featureNames;
      if (names.length !== FEATURE_NAMES.length || names.some((n, i) => n !== FEATURE_NAMES[i])) {
        throw new IncompatibleModelError(manifest.version, name);
      }
      parts.push({ prefix: name, bytes: await readFile(r.onnxSha256) });
    }
    const runner =
      parts.length > 0
        ? await MergedModelRunner.load(parts, { intraOpNumThreads: options.intraOpNumThreads ?? 1 })
        : undefined;
    return new ServedModel(manifest, runner);
  }

  /** The trained model of a resource, or undefined when the model has none. */
  model(resource: ResourceName): ResourceModel | undefined {
    return this.manifest.resources[resource]?.model;
  }

  /** Centre and upper quantile (log scale) of the rows of several resources, in one ONNX Runtime run. */
  async evaluateMany(items: readonly EnsembleRows[], engine: Engine = "onnx"): Promise<EnsembleOutputs[]> {
    for (const item of items) {
      if (!this.model(item.resource) || !this.runner) {
        throw new RangeError(`model ${this.version} has no ${item.resource} model`);
      }
    }
    if (engine === "typescript") return items.map((item) => this.#evaluateTypeScript(item));
    if (items.length === 0 || !this.runner) return [];
    const F = FEATURE_NAMES.length;
    const out = await this.runner.run(
      items.map((item) => ({
        prefix: item.resource,
        rows: item.rows.subarray(0, item.count * F),
        count: item.count,
      })),
    );
    // ONNX Runtime's own float32 outputs, read as they are: a copy per request was only garbage.
    return items.map((item) => {
      const values = out.get(item.resource) as Record<string, ArrayLike<number>>;
      return { centre: values.centre, upper: values.upper };
    });
  }

  /** Centre and upper quantile of `count` rows of one resource. */
  async evaluate(
    resource: ResourceName,
    rows: Float32Array,
    count: number,
    engine: Engine = "onnx",
  ): Promise<EnsembleOutputs> {
    const [out] = await this.evaluateMany([{ resource, rows, count }], engine);
    return out;
  }

  #evaluateTypeScript({ resource, rows, count }: EnsembleRows): EnsembleOutputs {
    const model = this.model(resource) as ResourceModel;
    const F = FEATURE_NAMES.length;
    const centre = new Float64Array(count);
    const upper = new Float64Array(count);
    for (let i = 0; i < count; i++) {
      const row = rows.subarray(i * F, (i + 1) * F);
      centre[i] = evaluateEnsemble(model.centre, row);
      upper[i] = evaluateEnsemble(model.upper, row);
    }
    return { centre, upper };
  }

  /** Frees the ONNX Runtime session (after calls in flight). */
  async close(): Promise<void> {
    await this.runner?.close();
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
