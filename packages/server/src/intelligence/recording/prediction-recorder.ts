import type { Prediction } from "@jobsight/schemas";
import { BufferPool } from "../../data-plane/copy/buffer-pool.js";
import { Utf8Writer } from "../../data-plane/copy/utf8-writer.js";
import type { SqlPool } from "../../data-plane/storage/database.js";
import {
  findIdempotentPredictions,
  findPrediction,
  type IdempotencyRef,
  insertPredictionRows,
  PREDICTION_LINE_BYTES,
  type RecordedPrediction,
  writePredictionRow,
} from "../../data-plane/stores/prediction-store.js";
import { answerText } from "../serving/answer-json.js";

/** Options of {@link PredictionRecorder}. */
export type PredictionRecorderOptions = {
  /**
   * Milliseconds between two writes of the predictions made meanwhile.
   * @default 200
   */
  flushIntervalMs?: number;
  /**
   * Most predictions per write.
   * @default 5000
   */
  maxBatch?: number;
  /**
   * A write starts as soon as this many predictions wait and no write is under way, and again
   * when a write ends with this many waiting, rather than at the next interval, so PostgreSQL
   * keeps pace with a stream of batches. At most `maxBatch`.
   * @default 1024
   */
  writeAtPending?: number;
  /**
   * Most predictions kept while PostgreSQL is unreachable; beyond, the oldest are dropped (counted).
   * @default 200000
   */
  maxPending?: number;
  /** Called when a write fails (it is retried next tick). @default no-op */
  onError?: (error: unknown, pending: number) => void;
};

/** A prediction waiting to be written. */
type Pending = {
  id: string;
  /**
   * Its answer's JSON after the id, shared by every request for the same job in a batch; or,
   * recorded without one, the answer itself.
   */
  answer: Uint8Array | Prediction;
  /** Sender's idempotency key with its cluster and user (`refKey`), if one was given. */
  key: string | undefined;
  /** Its COPY row (binary format): bytes `[start, end)` of a segment shared with others recorded near it. */
  segment: Segment;
  start: number;
  end: number;
  /** Written or dropped, and let go of (once only: see `#forget`). */
  done: boolean;
};

/**
 * COPY rows of predictions recorded one after the other, and how many of them still wait.
 * Outside the JavaScript heap, so rows waiting for their write give the garbage collector no work.
 */
type Segment = { text: Utf8Writer; waiting: number };

// Shared by many records (a buffer each cost more to allocate than to encode), and large enough
// for several slices of a batch so the pool keeps up; see docs/performance.md.
const SEGMENT_BYTES = 1024 * 1024;

/**
 * Records every prediction without making the caller wait for PostgreSQL: predictions are kept
 * in memory and written in batches (COPY) every few hundred milliseconds, and are readable by id
 * meanwhile. A failed write is retried on the next tick; `close()` writes what is left.
 *
 * What waits is already encoded: each prediction's COPY row (outside the JavaScript heap) and
 * its answer's JSON, not the objects it was made of (see docs/performance.md).
 *
 * @example
 * ```ts
 * const recorder = new PredictionRecorder(pool);
 * recorder.record([recorded]);
 * await recorder.flush();
 * ```
 */
export class PredictionRecorder {
  #pending: Pending[] = [];
  readonly #byKey = new Map<string, Pending>();
  #segment: Segment | undefined;
  #segmentRoom = 0;
  /** Segments none of whose lines wait any more, given back to the pool when no write reads them. */
  #retired: Segment[] = [];
  readonly #buffers = new BufferPool();
  #writing: Promise<void> | undefined;
  readonly #timer: NodeJS.Timeout;
  readonly #options: Required<Omit<PredictionRecorderOptions, "onError">> &
    Pick<PredictionRecorderOptions, "onError">;
  /** Predictions dropped because storage was unreachable too long. */
  dropped = 0;
  /** Predictions written. */
  written = 0;

  constructor(
    private readonly pool: SqlPool,
    options: PredictionRecorderOptions = {},
  ) {
    this.#options = {
      flushIntervalMs: options.flushIntervalMs ?? 200,
      maxBatch: options.maxBatch ?? 5000,
      maxPending: options.maxPending ?? 200_000,
      writeAtPending: Math.min(options.writeAtPending ?? 1024, options.maxBatch ?? 5000),
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
    if (items.length === 0) return;
    const expected = items.length * PREDICTION_LINE_BYTES;
    if (!this.#segment || this.#segment.text.length + expected > this.#segmentRoom) {
      if (this.#segment?.waiting === 0) this.#retired.push(this.#segment);
      this.#segmentRoom = Math.max(SEGMENT_BYTES, expected);
      this.#segment = {
        text: new Utf8Writer(this.#segmentRoom, this.#buffers),
        waiting: 0,
      };
    }
    const segment = this.#segment;
    segment.waiting += items.length;
    for (const item of items) {
      const start = segment.text.length;
      writePredictionRow(segment.text, item);
      const pending: Pending = {
        id: item.answer.id,
        answer: item.answerTail ?? item.answer,
        key: idempotencyKeyOf(item),
        segment,
        start,
        end: segment.text.length,
        done: false,
      };
      this.#pending.push(pending);
      if (pending.key !== undefined && !this.#byKey.has(pending.key)) this.#byKey.set(pending.key, pending);
    }
    const over = this.#pending.length - this.#options.maxPending;
    if (over > 0) {
      for (const item of this.#pending.splice(0, over)) this.#forget(item);
      this.dropped += over;
      this.#releaseRetired();
    }
    if (this.#pending.length >= this.#options.writeAtPending) void this.#tick();
  }

  /** A prediction by id: from memory while it waits, else from PostgreSQL. */
  async get(id: string): Promise<Prediction | undefined> {
    // Searched, not indexed: a map by id cost every prediction more than this rare read costs;
    // the list is a write's worth, or up to `maxPending` while PostgreSQL is unreachable.
    const pending = this.#pending;
    for (let i = pending.length - 1; i >= 0; i--) if (pending[i].id === id) return answerOf(pending[i]);
    return await findPrediction(this.pool, id);
  }

  /** The predictions already made for idempotency keys (in order; undefined where none was). */
  async findIdempotent(refs: readonly IdempotencyRef[]): Promise<(Prediction | undefined)[]> {
    const out = refs.map((r) => {
      const waiting = this.#byKey.get(refKey(r.cluster, r.user, r.key));
      return waiting ? answerOf(waiting) : undefined;
    });
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

  /**
   * Writes now what waits (`items` included) and returns, for each of `items` with an idempotency
   * key, the answer that stands for that key when another server recorded a different one first
   * (undefined otherwise): a keyed answer is durable before its caller gets it, so a server killed
   * after answering loses nothing its caller holds. Rejects when the write fails.
   */
  async settle(items: readonly RecordedPrediction[]): Promise<(Prediction | undefined)[]> {
    await this.flush();
    const keyed = items.flatMap((p, i) => (p.idempotencyKey === undefined ? [] : [i]));
    const stored = await findIdempotentPredictions(
      this.pool,
      keyed.map((i) => ({
        cluster: items[i].answer.cluster,
        user: items[i].answer.user,
        key: items[i].idempotencyKey as string,
      })),
    );
    const out: (Prediction | undefined)[] = new Array(items.length).fill(undefined);
    keyed.forEach((i, k) => {
      const standing = stored[k];
      if (standing && standing.id !== items[i].answer.id) out[i] = standing;
    });
    return out;
  }

  /** Writes everything recorded so far; rejects when a write fails (the predictions stay queued). */
  async flush(): Promise<void> {
    // A write that ends may start the next one itself (`writeAtPending`): wait for it rather than
    // send the same rows twice.
    while (this.#pending.length > 0 || this.#writing) {
      if (this.#writing) await this.#writing.catch(() => {});
      else await this.#write();
    }
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

  #forget(item: Pending): void {
    // Once only: a prediction dropped while its write was under way is forgotten again after it.
    if (item.done) return;
    item.done = true;
    if (item.key !== undefined && this.#byKey.get(item.key) === item) this.#byKey.delete(item.key);
    if (--item.segment.waiting === 0 && item.segment !== this.#segment) this.#retired.push(item.segment);
  }

  /**
   * Gives retired segments' buffers back, unless a write is under way: it may be sending lines
   * of a segment whose predictions were dropped meanwhile.
   */
  #releaseRetired(): void {
    if (this.#writing) return;
    for (const segment of this.#retired) {
      segment.text.release();
    }
    this.#retired = [];
  }

  #write(): Promise<void> {
    const batch = this.#pending.slice(0, this.#options.maxBatch);
    // Fresh ids cannot be there yet; a retry of a write that was committed after all meets its
    // own rows, and insertPredictionRows then redoes it skipping them.
    const mayRepeat = batch.some((p) => p.key !== undefined);
    const write = insertPredictionRows(this.pool, rowsOf(batch), { mayRepeat }).then(() => {
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
      this.#releaseRetired();
    };
    write.then(() => {
      clear();
      // Not after a failure: the next tick retries, rather than a loop against a database that is down.
      if (this.#pending.length >= this.#options.writeAtPending) void this.#tick();
    }, clear);
    return write;
  }
}

function answerOf(p: Pending): Prediction {
  // Parsed from its text: a reader gets its own copy, as from PostgreSQL.
  const text = p.answer instanceof Uint8Array ? answerText({ id: p.id }, p.answer) : JSON.stringify(p.answer);
  return JSON.parse(text) as Prediction;
}

/**
 * The COPY rows of waiting predictions (in queue order): those recorded together are adjacent in
 * the queue and in their segment, so each run of them is one slice, and the slices are sent one
 * after the other rather than copied into one buffer first.
 */
function rowsOf(batch: readonly Pending[]): Buffer[] {
  const parts: Buffer[] = [];
  for (let i = 0; i < batch.length; ) {
    let j = i;
    while (
      j + 1 < batch.length &&
      batch[j + 1].segment === batch[i].segment &&
      batch[j + 1].start === batch[j].end
    )
      j++;
    // A view of the segment as it is now: it may have grown (moved) since these were recorded.
    parts.push(batch[i].segment.text.bytes().subarray(batch[i].start, batch[j].end));
    i = j + 1;
  }
  return parts;
}

function refKey(cluster: string, user: string, key: string): string {
  return `${cluster}\u0000${user}\u0000${key}`;
}

function idempotencyKeyOf(p: RecordedPrediction): string | undefined {
  return p.idempotencyKey === undefined
    ? undefined
    : refKey(p.answer.cluster, p.answer.user, p.idempotencyKey);
}
