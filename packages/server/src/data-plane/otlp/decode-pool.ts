import type { Worker } from "node:worker_threads";
import {
  type DecodeObservationsOptions,
  OtlpDecodeError,
  type OtlpHttpEncoding,
} from "@jobsight/otel-bridge";
import { InternalError } from "../../errors.js";
import { startModuleWorker } from "../../platform/workers/start-module-worker.js";
import { BufferPool } from "../copy/buffer-pool.js";
import type { StorageFlavour } from "../storage/migration-files.js";
import { type DecodedBatch, decodeBatch } from "./decode-batch.js";
import type { DecodeAnswer, DecodeRequest, GiveBackRequest } from "./otlp-decode-worker.js";
import type { OtlpLogger } from "./otlp-logger.js";

/** Options of {@link OtlpDecodePool}. */
export type OtlpDecodePoolOptions = {
  /**
   * Worker threads that decode exports; 0 decodes on the calling thread.
   * @default 0
   */
  threads?: number;
  /** Where a worker's failure is logged. @default silent */
  log?: OtlpLogger;
  /**
   * Flavour of the sample store the batches go to: on `"timescale"` they are prepared without
   * the hourly summary parameters only plain PostgreSQL uses (see `prepareSamples`).
   * @default "plain"
   */
  flavour?: StorageFlavour;
};

const YOUNG_GENERATION_MB = 128;

type Pending = { resolve: (batch: DecodedBatch) => void; reject: (error: unknown) => void };
type Slot = { worker: Worker; pending: Map<number, Pending> };

/**
 * Decodes OTLP exports (decode, map to samples, encode for COPY: the CPU-bound half of ingest) on
 * worker threads, so the event loop that answers requests and talks to PostgreSQL is not the
 * one doing it, and a server with more cores ingests more. Each export goes to the least busy
 * worker; a worker that dies fails what it held (an internal error) and is replaced at the next
 * export. Workers start on first use and never keep the process alive. Without threads (or when
 * no worker can start) decoding happens on the calling thread, with the same results and errors.
 *
 * @example
 * ```ts
 * const pool = new OtlpDecodePool({ threads: 2, flavour: storage.samples.flavour });
 * const { prepared, rejected } = await pool.decode(body, "protobuf", { cluster: "hpc1" });
 * await pool.close();
 * ```
 */
export class OtlpDecodePool {
  readonly threads: number;
  readonly #log?: OtlpLogger;
  readonly #flavour: StorageFlavour;
  readonly #slots: (Slot | undefined)[];
  #nextId = 1;
  #inline = false;
  #closed = false;
  /** COPY text buffers of exports decoded on the calling thread (workers have their own). */
  readonly #buffers = new BufferPool();

  constructor(options: OtlpDecodePoolOptions = {}) {
    this.threads = Math.max(0, Math.floor(options.threads ?? 0));
    this.#log = options.log;
    this.#flavour = options.flavour ?? "plain";
    this.#slots = new Array(this.threads).fill(undefined);
  }

  /**
   * Decodes one export for the sender's cluster. The bytes are copied to the worker, unless
   * `transfer` is set: then a body that is a whole buffer of its own (not a view into a larger
   * one) is moved there instead, and the caller must not use it afterwards. Call the batch's
   * `release()` once it is stored.
   *
   * @throws {OtlpDecodeError} for a body that does not decode; {@link InternalError} when the
   *   worker holding it died.
   */
  decode(
    body: Uint8Array,
    encoding: OtlpHttpEncoding,
    options: DecodeObservationsOptions,
    { transfer = false }: { transfer?: boolean } = {},
  ): Promise<DecodedBatch> {
    const slot = this.threads > 0 && !this.#inline && !this.#closed ? this.#leastBusy() : undefined;
    if (!slot) {
      try {
        const buffers = this.#buffers;
        const batch = decodeBatch(body, encoding, options, { flavour: this.#flavour, buffers });
        const text = batch.prepared.copyText;
        batch.release = () => buffers.give(Buffer.from(text.buffer));
        return Promise.resolve(batch);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const id = this.#nextId++;
    // The worker owns what it is sent: a body that is a view into a larger buffer (a shared
    // pool's) or one the caller keeps is copied.
    const whole = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength;
    const bytes = transfer && whole ? body : new Uint8Array(body);
    const request: DecodeRequest = {
      id,
      body: bytes,
      encoding,
      cluster: options.cluster ?? "",
      hostOnly: options.hostOnly === true,
      containerOnly: options.containerOnly === true,
      flavour: this.#flavour,
    };
    return new Promise<DecodedBatch>((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage(request, [bytes.buffer as ArrayBuffer]);
    });
  }

  /** Ends the workers; exports still in them fail. */
  async close(): Promise<void> {
    this.#closed = true;
    const slots = this.#slots.splice(0);
    await Promise.all(slots.map((slot) => slot?.worker.terminate()));
  }

  #leastBusy(): Slot | undefined {
    let best: Slot | undefined;
    for (let i = 0; i < this.#slots.length; i++) {
      const slot = this.#slots[i] ?? this.#start(i);
      if (!slot) return undefined;
      if (!best || slot.pending.size < best.pending.size) best = slot;
    }
    return best;
  }

  #start(index: number): Slot | undefined {
    const worker = startModuleWorker("otlp-decode-worker", import.meta.url, {
      // A body's samples live until its batch is encoded: a larger young generation lets them die
      // there rather than be promoted (see docs/performance.md).
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    });
    if (!worker) {
      this.#inline = true;
      this.#log?.warn(
        { transport: "decode" },
        "no OTLP decode worker can start; decoding on the main thread",
      );
      return undefined;
    }
    worker.unref();
    const slot: Slot = { worker, pending: new Map() };
    this.#slots[index] = slot;
    worker.on("message", (answer: DecodeAnswer) => {
      const pending = slot.pending.get(answer.id);
      if (!pending) return;
      slot.pending.delete(answer.id);
      if (answer.ok) {
        const text = answer.batch.prepared.copyText.buffer as ArrayBuffer;
        answer.batch.release = () => {
          // A worker that ended meanwhile takes nothing back: its replacement has a pool of its own.
          if (this.#slots[index] === slot) {
            const give: GiveBackRequest = { give: text };
            slot.worker.postMessage(give, [text]);
          }
        };
        pending.resolve(answer.batch);
      } else if (answer.decode)
        pending.reject(new OtlpDecodeError(answer.decode.code, answer.decode.message));
      else
        pending.reject(new InternalError(Object.assign(new Error(answer.message), { stack: answer.stack })));
    });
    const fail = (error: unknown) => {
      if (this.#slots[index] === slot) this.#slots[index] = undefined;
      if (!this.#closed && slot.pending.size > 0) {
        this.#log?.error({ err: error, transport: "decode" }, "an OTLP decode worker died");
      }
      for (const p of slot.pending.values()) p.reject(new InternalError(error));
      slot.pending.clear();
    };
    worker.once("error", fail);
    worker.once("exit", (code) => fail(new Error(`the OTLP decode worker exited (code ${code})`)));
    return slot;
  }
}
