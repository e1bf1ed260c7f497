import type { Prediction } from "@jobsight/schemas";
import type pg from "pg";
import {
  findIdempotentPredictions,
  findPrediction,
  type IdempotencyRef,
  insertPredictions,
  type RecordedPrediction,
} from "./prediction-store.js";

/** Options of {@link PredictionRecorder}. */
export type PredictionRecorderOptions = {
  /**
   * Milliseconds between two writes of the predictions made meanwhile.
   * @default 200
   */
  flushIntervalMs?: number;
  /**
   * Predictions per write; a write starts at once when this many wait.
   * @default 5000
   */
  maxBatch?: number;
  /**
   * Most predictions kept while PostgreSQL is unreachable; beyond, the oldest are dropped (counted).
   * @default 200000
   */
  maxPending?: number;
  /** Called when a write fails (it is retried next tick). @default no-op */
  onError?: (error: unknown, pending: number) => void;
};

/**
 * Records every prediction without making the caller wait for PostgreSQL: predictions are kept
 * in memory and written in batches (COPY) every few hundred milliseconds, and are readable by id
 * meanwhile. A failed write is retried on the next tick; `close()` writes what is left.
 *
 * @example
 * ```ts
 * const recorder = new PredictionRecorder(pool);
 * recorder.record([recorded]);
 * await recorder.flush();
 * ```
 */
export class PredictionRecorder {
  #pending: RecordedPrediction[] = [];
  readonly #byId = new Map<string, RecordedPrediction>();
  readonly #byKey = new Map<string, RecordedPrediction>();
  #writing: Promise<void> | undefined;
  readonly #timer: NodeJS.Timeout;
  readonly #options: Required<Omit<PredictionRecorderOptions, "onError">> &
    Pick<PredictionRecorderOptions, "onError">;
  /** Predictions dropped because storage was unreachable too long. */
  dropped = 0;
  /** Predictions written. */
  written = 0;

  constructor(
    private readonly pool: pg.Pool,
    options: PredictionRecorderOptions = {},
  ) {
    this.#options = {
      flushIntervalMs: options.flushIntervalMs ?? 200,
      maxBatch: options.maxBatch ?? 5000,
      maxPending: options.maxPending ?? 200_000,
      onError: options.onError,
    };
    this.#timer = setInterval(() => void this.#tick(), this.#options.flushIntervalMs);
    this.#timer.unref();
  }

  /** Predictions waiting to be written. */
  get pending(): number {
    return this.#pending.length;
  }

  /** Queues predictions for the next write. */
  record(items: readonly RecordedPrediction[]): void {
    for (const item of items) {
      this.#pending.push(item);
      this.#byId.set(item.answer.id, item);
      const key = idempotencyKeyOf(item);
      if (key !== undefined && !this.#byKey.has(key)) this.#byKey.set(key, item);
    }
    const over = this.#pending.length - this.#options.maxPending;
    if (over > 0) {
      for (const item of this.#pending.splice(0, over)) this.#forget(item);
      this.dropped += over;
    }
    if (this.#pending.length >= this.#options.maxBatch) void this.#tick();
  }

  /** A prediction by id: from memory while it waits, else from PostgreSQL. */
  async get(id: string): Promise<Prediction | undefined> {
    return this.#byId.get(id)?.answer ?? (await findPrediction(this.pool, id));
  }

  /** The predictions already made for idempotency keys (in order; undefined where none was). */
  async findIdempotent(refs: readonly IdempotencyRef[]): Promise<(Prediction | undefined)[]> {
    const out = refs.map((r) => this.#byKey.get(refKey(r.cluster, r.user, r.key))?.answer);
    const missing = out.flatMap((answer, i) => (answer === undefined ? [i] : []));
    const stored = await findIdempotentPredictions(
      this.pool,
      missing.map((i) => refs[i]),
    );
    missing.forEach((i, k) => {
      out[i] = stored[k];
    });
    return out;
  }

  /** Writes everything recorded so far; rejects when a write fails (the predictions stay queued). */
  async flush(): Promise<void> {
    while (this.#writing) await this.#writing.catch(() => {});
    while (this.#pending.length > 0) await this.#write();
  }

  /** Stops the timer and writes what is left. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }

  async #tick(): Promise<void> {
    if (this.#writing || this.#pending.length === 0) return;
    try {
      await this.#write();
    } catch (error) {
      this.#options.onError?.(error, this.#pending.length);
    }
  }

  #forget(item: RecordedPrediction): void {
    this.#byId.delete(item.answer.id);
    const key = idempotencyKeyOf(item);
    if (key !== undefined && this.#byKey.get(key) === item) this.#byKey.delete(key);
  }

  #write(): Promise<void> {
    const batch = this.#pending.slice(0, this.#options.maxBatch);
    const write = insertPredictions(this.pool, batch).then(() => {
      // Only now: a reader must find each prediction in memory or in PostgreSQL at every moment.
      // By identity: the oldest may have been dropped meanwhile (storage was down too long).
      const done = new Set(batch);
      this.#pending = this.#pending.filter((p) => !done.has(p));
      for (const item of batch) this.#forget(item);
      this.written += batch.length;
    });
    this.#writing = write;
    const clear = () => {
      if (this.#writing === write) this.#writing = undefined;
    };
    write.then(clear, clear);
    return write;
  }
}

function refKey(cluster: string, user: string, key: string): string {
  return `${cluster}\u0000${user}\u0000${key}`;
}

function idempotencyKeyOf(p: RecordedPrediction): string | undefined {
  return p.idempotencyKey === undefined
    ? undefined
    : refKey(p.answer.cluster, p.answer.user, p.idempotencyKey);
}
