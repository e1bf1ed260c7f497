import * as ort from "onnxruntime-node";
import { mergeOnnxModels, type OnnxModelPart } from "./merge-onnx-models.js";
import {
  messageOf,
  OnnxFeatureCountError,
  OnnxInferenceError,
  OnnxModelLoadError,
  OnnxRunnerClosedError,
} from "./onnx-errors.js";

/** Options of {@link MergedModelRunner.load}. */
export type MergedModelRunnerOptions = {
  /** ONNX Runtime's intra-op threads. @default 1 (the server's other work has the other cores) */
  intraOpNumThreads?: number;
  /** Most rows of one part per run; more are evaluated in several runs. @default 8192 */
  maxRowsPerRun?: number;
};

/** Rows of one part to evaluate: `count` rows, row-major, as wide as the part's input. */
export type MergedFeed = { prefix: string; rows: Float32Array; count: number };

/** A part's outputs by their own name (`centre`, `upper`), one value per row. */
export type MergedOutputs = Record<string, Float32Array | Float64Array>;

type Part = { prefix: string; input: string; width: number; outputs: string[] };

/**
 * Several exported models in one ONNX Runtime session ({@link mergeOnnxModels}): the rows of every
 * part are evaluated in one run. A part with no rows in a call still gets one row of zeros (every
 * input of a graph must be fed); its outputs are not returned.
 *
 * @example
 * ```ts
 * const runner = await MergedModelRunner.load([{ prefix: "memory", bytes }, { prefix: "cores", bytes: b2 }]);
 * const out = await runner.run([{ prefix: "memory", rows, count: 2 }]);
 * out.get("memory")?.centre; // Float32Array(2)
 * ```
 */
export class MergedModelRunner {
  readonly #inFlight = new Set<Promise<unknown>>();
  #closed = false;

  private constructor(
    private readonly session: ort.InferenceSession,
    private readonly parts: Map<string, Part>,
    private readonly maxRowsPerRun: number,
  ) {}

  /** Merges the parts and opens one session. Each part must have one `float[N, F]` input. */
  static async load(
    parts: readonly OnnxModelPart[],
    options: MergedModelRunnerOptions = {},
  ): Promise<MergedModelRunner> {
    const maxRowsPerRun = options.maxRowsPerRun ?? 8192;
    if (!Number.isInteger(maxRowsPerRun) || maxRowsPerRun < 1) {
      throw new RangeError("maxRowsPerRun: must be a positive integer");
    }
    let session: ort.InferenceSession;
    try {
      session = await ort.InferenceSession.create(mergeOnnxModels(parts), {
        intraOpNumThreads: options.intraOpNumThreads ?? 1,
        logSeverityLevel: 3,
      });
    } catch (cause) {
      if (cause instanceof OnnxModelLoadError) throw cause;
      throw new OnnxModelLoadError(`ONNX Runtime rejected the merged model: ${messageOf(cause)}`, { cause });
    }
    const byPrefix = new Map<string, Part>();
    for (const { prefix } of parts) {
      const inputs = session.inputMetadata.filter((m) => m.name.startsWith(`${prefix}/`));
      const input = inputs[0];
      const width = input?.isTensor ? input.shape[1] : undefined;
      if (
        inputs.length !== 1 ||
        !input.isTensor ||
        input.type !== "float32" ||
        input.shape.length !== 2 ||
        typeof width !== "number"
      ) {
        await session.release();
        throw new OnnxModelLoadError(
          `model ${prefix} must have exactly one input of type float[N, F] with a fixed F`,
        );
      }
      const outputs = session.outputNames.filter((n) => n.startsWith(`${prefix}/`));
      byPrefix.set(prefix, { prefix, input: input.name, width, outputs });
    }
    return new MergedModelRunner(session, byPrefix, maxRowsPerRun);
  }

  /** Input width (features per row) of a part. */
  width(prefix: string): number | undefined {
    return this.parts.get(prefix)?.width;
  }

  /** Evaluates the rows of each fed part; the outputs by prefix, then by the part's output name. */
  run(feeds: readonly MergedFeed[]): Promise<Map<string, MergedOutputs>> {
    if (this.#closed) return Promise.reject(new OnnxRunnerClosedError());
    for (const feed of feeds) {
      const part = this.parts.get(feed.prefix);
      if (!part) return Promise.reject(new RangeError(`no model part named ${feed.prefix}`));
      if (feed.rows.length < feed.count * part.width) {
        return Promise.reject(
          new OnnxFeatureCountError(
            part.width,
            feed.rows.length / Math.max(1, feed.count),
            ` in ${feed.prefix}`,
          ),
        );
      }
    }
    const call = this.#runChunks(feeds);
    this.#inFlight.add(call);
    const forget = () => this.#inFlight.delete(call);
    call.then(forget, forget);
    return call;
  }

  /** Frees the session once the runs in flight are done. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.allSettled([...this.#inFlight]);
    await this.session.release();
  }

  async #runChunks(feeds: readonly MergedFeed[]): Promise<Map<string, MergedOutputs>> {
    const most = feeds.reduce((m, f) => Math.max(m, f.count), 0);
    if (most <= this.maxRowsPerRun) return this.#runOnce(feeds);
    // Rows beyond one run's share go in later runs, each part's outputs joined in order.
    const joined = new Map<string, MergedOutputs>();
    for (const feed of feeds) {
      const part = this.parts.get(feed.prefix) as Part;
      joined.set(
        feed.prefix,
        Object.fromEntries(part.outputs.map((o) => [localName(o), new Float32Array(feed.count)])),
      );
    }
    for (let start = 0; start < most; start += this.maxRowsPerRun) {
      const chunk = feeds
        .filter((f) => f.count > start)
        .map((f) => {
          const width = (this.parts.get(f.prefix) as Part).width;
          const count = Math.min(this.maxRowsPerRun, f.count - start);
          return { prefix: f.prefix, rows: f.rows.subarray(start * width, (start + count) * width), count };
        });
      const out = await this.#runOnce(chunk);
      for (const [prefix, values] of out) {
        const into = joined.get(prefix) as MergedOutputs;
        for (const [name, data] of Object.entries(values)) into[name].set(data, start);
      }
    }
    return joined;
  }

  async #runOnce(feeds: readonly MergedFeed[]): Promise<Map<string, MergedOutputs>> {
    const tensors: Record<string, ort.Tensor> = {};
    for (const part of this.parts.values()) {
      const feed = feeds.find((f) => f.prefix === part.prefix && f.count > 0);
      tensors[part.input] = feed
        ? new ort.Tensor("float32", feed.rows.subarray(0, feed.count * part.width), [feed.count, part.width])
        : new ort.Tensor("float32", new Float32Array(part.width), [1, part.width]);
    }
    let outputs: ort.InferenceSession.OnnxValueMapType;
    try {
      outputs = await this.session.run(tensors);
    } catch (cause) {
      throw new OnnxInferenceError(`ONNX Runtime failed to run the model: ${messageOf(cause)}`, { cause });
    }
    const result = new Map<string, MergedOutputs>();
    for (const feed of feeds) {
      const values: MergedOutputs = {};
      for (const name of (this.parts.get(feed.prefix) as Part).outputs) {
        if (feed.count === 0) {
          values[localName(name)] = new Float32Array(0);
          continue;
        }
        const data = outputs[name].data;
        values[localName(name)] =
          data instanceof Float32Array || data instanceof Float64Array
            ? data
            : Float64Array.from(data as ArrayLike<number>, Number);
      }
      result.set(feed.prefix, values);
    }
    return result;
  }
}

function localName(name: string): string {
  return name.slice(name.indexOf("/") + 1);
}
