import * as ort from "onnxruntime-node";
import {
  messageOf,
  OnnxFeatureCountError,
  OnnxInferenceError,
  OnnxModelLoadError,
  OnnxRunnerClosedError,
} from "./onnx-errors.js";
import { type OnnxModelMetadata, readOnnxModelMetadata } from "./onnx-metadata.js";
import { decodeModelProto } from "./onnx-proto.js";

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
  readonly #session: ort.InferenceSession;
  readonly #maxRowsPerRun: number;
  readonly #inFlight = new Set<Promise<unknown>>();
  #closed = false;

  private constructor(
    session: ort.InferenceSession,
    /** Name of the model's float[N, F] input. */
    readonly inputName: string,
    /** F: features per row the model reads. */
    readonly featureCount: number,
    /** Provenance from the model's `metadata_props`. */
    readonly metadata: OnnxModelMetadata,
    maxRowsPerRun: number,
  ) {
    this.#session = session;
    this.#maxRowsPerRun = maxRowsPerRun;
  }

  /** Output names in model order. */
  get outputNames(): readonly string[] {
    return this.#session.outputNames;
  }

  /**
   * Loads model bytes (as produced by `exportTreeEnsembleToOnnx`) into an ONNX Runtime session.
   * Throws {@link OnnxModelLoadError} for bytes ONNX Runtime rejects or a model whose single input
   * is not a float matrix of fixed width.
   */
  static async load(bytes: Uint8Array, options: OnnxModelRunnerOptions = {}): Promise<OnnxModelRunner> {
    const maxRowsPerRun = options.maxRowsPerRun ?? 8192;
    if (!Number.isInteger(maxRowsPerRun) || maxRowsPerRun < 1) {
      throw new RangeError("maxRowsPerRun: must be a positive integer");
    }
    let metadata: OnnxModelMetadata;
    try {
      metadata = readOnnxModelMetadata(decodeModelProto(bytes).metadata_props ?? []);
    } catch (cause) {
      throw new OnnxModelLoadError(`model bytes are not an ONNX ModelProto: ${messageOf(cause)}`, { cause });
    }
    let session: ort.InferenceSession;
    try {
      session = await ort.InferenceSession.create(bytes, {
        intraOpNumThreads: options.intraOpNumThreads ?? 0,
        logSeverityLevel: 3,
      });
    } catch (cause) {
      throw new OnnxModelLoadError(`ONNX Runtime rejected the model: ${messageOf(cause)}`, { cause });
    }
    const input = session.inputMetadata[0];
    const width = input?.isTensor ? input.shape[1] : undefined;
    if (
      session.inputNames.length !== 1 ||
      !input.isTensor ||
      input.type !== "float32" ||
      input.shape.length !== 2 ||
      typeof width !== "number"
    ) {
      await session.release();
      throw new OnnxModelLoadError("model must have exactly one input of type float[N, F] with a fixed F");
    }
    if (metadata.featureNames.length > 0 && metadata.featureNames.length !== width) {
      await session.release();
      throw new OnnxModelLoadError(
        `metadata names ${metadata.featureNames.length} features but the input has ${width} columns`,
      );
    }
    return new OnnxModelRunner(session, input.name, width, metadata, maxRowsPerRun);
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
    const call = this.#runChunks(values);
    this.#inFlight.add(call);
    const forget = () => this.#inFlight.delete(call);
    call.then(forget, forget);
    return call;
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
    if (this.#closed) return;
    this.#closed = true;
    await Promise.allSettled([...this.#inFlight]);
    await this.#session.release();
  }

  async #runChunks(values: Float32Array): Promise<OnnxTypedResult> {
    const rows = values.length / this.featureCount;
    if (rows <= this.#maxRowsPerRun) return this.#runOnce(values, rows);
    const result: OnnxTypedResult = {};
    const parts: OnnxTypedResult[] = [];
    for (let start = 0; start < rows; start += this.#maxRowsPerRun) {
      const end = Math.min(rows, start + this.#maxRowsPerRun);
      parts.push(
        await this.#runOnce(values.subarray(start * this.featureCount, end * this.featureCount), end - start),
      );
    }
    for (const name of this.outputNames) {
      const joined = new Float64Array(parts.reduce((n, part) => n + part[name].length, 0));
      let at = 0;
      for (const part of parts) {
        joined.set(part[name], at);
        at += part[name].length;
      }
      result[name] = joined;
    }
    return result;
  }

  async #runOnce(chunk: Float32Array, rows: number): Promise<OnnxTypedResult> {
    const feeds = { [this.inputName]: new ort.Tensor("float32", chunk, [rows, this.featureCount]) };
    let outputs: ort.InferenceSession.OnnxValueMapType;
    try {
      outputs = await this.#session.run(feeds);
    } catch (cause) {
      throw new OnnxInferenceError(`ONNX Runtime failed to run the model: ${messageOf(cause)}`, { cause });
    }
    const result: OnnxTypedResult = {};
    for (const name of this.outputNames) {
      const data = outputs[name].data;
      // Jobsight's models give float32, served as they are; other outputs become exact doubles.
      result[name] =
        data instanceof Float32Array || data instanceof Float64Array
          ? data
          : Float64Array.from(data as ArrayLike<number>, Number);
    }
    return result;
  }
}
