import { MergedModelRunner } from "./merged-model-runner.js";
import {
  messageOf,
  OnnxFeatureCountError,
  OnnxModelLoadError,
  OnnxRunnerClosedError,
} from "./onnx-errors.js";
import { type OnnxModelMetadata, readOnnxModelMetadata } from "./onnx-metadata.js";
import { decodeModelProto, type ModelProto } from "./onnx-proto.js";

/** Options of {@link OnnxModelRunner.load}. */
export type OnnxModelRunnerOptions = {
  /**
   * Threads ONNX Runtime may use inside one run.
   * @default 0 (ONNX Runtime's choice: one per physical core)
   */
  intraOpNumThreads?: number;
  /**
   * Largest number of rows handed to ONNX Runtime at once. onnxruntime-node runs a session
   * synchronously on the JavaScript thread, so a large batch is split into runs of at most this
   * many rows and other requests get the event loop between them.
   * @default 8192
   */
  maxRowsPerRun?: number;
};

/** Model outputs by name; each holds one number per input row (row-major if an output is wider). */
export type OnnxRunResult = Record<string, number[]>;

/** {@link OnnxRunResult} as typed arrays: ONNX Runtime's own output arrays where it can be. */
export type OnnxTypedResult = Record<string, Float32Array | Float64Array>;

/**
 * Serves one ONNX model with one reused ONNX Runtime session. Safe to call concurrently:
 * every call gets its own results, and `close()` waits for calls in flight.
 *
 * @example
 * const runner = await OnnxModelRunner.load(bytes);
 * const { value } = await runner.run(new Float32Array([1, 2, 3, 4]), 2); // two rows of two features
 * await runner.close();
 */
export class OnnxModelRunner {
  #closed = false;

  private constructor(
    // One session implementation for one model and for several: this is a merged model of one part.
    private readonly merged: MergedModelRunner,
    /** Name of the model's float[N, F] input. */
    readonly inputName: string,
    /** F: features per row the model reads. */
    readonly featureCount: number,
    /** Provenance from the model's `metadata_props`. */
    readonly metadata: OnnxModelMetadata,
    /** Output names in model order. */
    readonly outputNames: readonly string[],
  ) {}

  /**
   * Loads model bytes (as produced by `exportTreeEnsembleToOnnx`) into an ONNX Runtime session.
   * Throws {@link OnnxModelLoadError} for bytes ONNX Runtime rejects or a model whose single input
   * is not a float matrix of fixed width.
   */
  static async load(bytes: Uint8Array, options: OnnxModelRunnerOptions = {}): Promise<OnnxModelRunner> {
    let model: ModelProto;
    let metadata: OnnxModelMetadata;
    try {
      model = decodeModelProto(bytes);
      metadata = readOnnxModelMetadata(model.metadata_props ?? []);
    } catch (cause) {
      throw new OnnxModelLoadError(`model bytes are not an ONNX ModelProto: ${messageOf(cause)}`, { cause });
    }
    const merged = await MergedModelRunner.load([{ prefix: PART, bytes }], {
      intraOpNumThreads: options.intraOpNumThreads ?? 0,
      maxRowsPerRun: options.maxRowsPerRun,
    });
    const width = merged.width(PART) as number;
    if (metadata.featureNames.length > 0 && metadata.featureNames.length !== width) {
      await merged.close();
      throw new OnnxModelLoadError(
        `metadata names ${metadata.featureNames.length} features but the input has ${width} columns`,
      );
    }
    const graph = model.graph ?? {};
    return new OnnxModelRunner(
      merged,
      graph.input?.[0]?.name ?? "",
      width,
      metadata,
      (graph.output ?? []).map((o) => o.name),
    );
  }

  /**
   * Runs a batch given as row-major float32 values, `featureCount` per row.
   * Throws {@link OnnxFeatureCountError} when `featureCount` is not the model's or `values` is not
   * a whole number of rows.
   */
  run(values: Float32Array, featureCount: number): Promise<OnnxRunResult> {
    return this.runTyped(values, featureCount).then((typed) => {
      const result: OnnxRunResult = {};
      for (const name of this.outputNames) result[name] = Array.from(typed[name]);
      return result;
    });
  }

  /**
   * {@link run} with each output as a typed array (ONNX Runtime's own float32 output, not copied
   * into a number array): what serving reads, one number per row, with no garbage per row.
   */
  runTyped(values: Float32Array, featureCount: number): Promise<OnnxTypedResult> {
    if (this.#closed) return Promise.reject(new OnnxRunnerClosedError());
    if (featureCount !== this.featureCount) {
      return Promise.reject(new OnnxFeatureCountError(this.featureCount, featureCount));
    }
    if (values.length % featureCount !== 0) {
      return Promise.reject(
        new OnnxFeatureCountError(
          this.featureCount,
          featureCount,
          ` (${values.length} values is not whole rows)`,
        ),
      );
    }
    return this.merged
      .run([{ prefix: PART, rows: values, count: values.length / featureCount }])
      .then((out) => out.get(PART) as OnnxTypedResult);
  }

  /** Runs a batch given as rows (numbers are rounded to float32, as the model computes in float32). */
  runRows(rows: readonly ArrayLike<number>[]): Promise<OnnxRunResult> {
    const values = new Float32Array(rows.length * this.featureCount);
    for (let r = 0; r < rows.length; r++) {
      if (rows[r].length !== this.featureCount) {
        return Promise.reject(new OnnxFeatureCountError(this.featureCount, rows[r].length, ` in row ${r}`));
      }
      values.set(rows[r], r * this.featureCount);
    }
    return this.run(values, this.featureCount);
  }

  /** Waits for runs in flight, then frees the native session. Later runs reject. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.merged.close();
  }
}

/** The name the single model takes inside its merged session (outputs come back by their own names). */
const PART = "model";
