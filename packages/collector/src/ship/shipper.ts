import { join } from "node:path";
import type { IngestRejection, JobRecord, NodeEvent, UsageSample } from "@jobsight/schemas/light";
import { SinkError } from "../errors.js";
import { type Logger, silentLogger } from "../log/logger.js";
import { writeFileAtomic } from "../spool/atomic-file.js";
import type { DiskSpool } from "../spool/disk-spool.js";
import type { SpoolRecord } from "../spool/frame.js";
import { makePrivateDir } from "../spool/spool-fs.js";
import { Backoff, type BackoffOptions } from "./backoff.js";
import { batchWith, ITEMS_KEY, type ShipBatch, type Sink } from "./sink.js";

/** Options of {@link Shipper}. */
export type ShipperOptions = {
  spool: DiskSpool;
  sink: Sink;
  /** How often to look for records to send. @default 1000 */
  intervalMs?: number;
  /** Records per batch. @default 500 */
  maxBatchRecords?: number;
  /** Encoded bytes per batch. @default 4194304 */
  maxBatchBytes?: number;
  /** Back-off after a failed send. @default { initialMs: 1000, maxMs: 60000 } */
  backoff?: BackoffOptions;
  /** Clock. @default Date.now */
  now?: () => number;
  /** Structured log. @default silent */
  logger?: Logger;
};

/** Figures for health output. */
export type ShipperStats = {
  sentBatches: number;
  sentRecords: number;
  /**
   * Batches the backend refused whole for good (4xx), each kept in `<spool>/rejected/` and never
   * sent again; counted since the spool was created (kept in its state across restarts).
   */
  rejectedBatches: number;
  /**
   * Records refused for good: those of the batches refused whole, and those a stored batch's
   * answer named as invalid (kept the same way, without the rest of their batch); counted since
   * the spool was created, like `rejectedBatches`.
   */
  rejectedRecords: number;
  failures: number;
  consecutiveFailures: number;
  skippedTicks: number;
  lastSuccessAt: string | null;
  lastError: string | null;
  /** Age in seconds of the oldest record waiting to be sent (0 when nothing waits). */
  lagSeconds: number;
};

function recordTime(r: SpoolRecord): number | undefined {
  const v = r.value as { time?: string; endedAt?: string; startedAt?: string; submittedAt?: string };
  const t = v.time ?? v.endedAt ?? v.startedAt ?? v.submittedAt;
  const ms = t ? Date.parse(t) : Number.NaN;
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * Moves spooled records to the backend in order: each tick sends batches until the spool is empty
 * or the backend fails, then backs off with jitter. A batch's bounds are written to the spool
 * before it is sent and its idempotency key derives from them, so after a crash the very same
 * batch is resent under the same key and stored once. A batch the backend refuses for good (a
 * `SinkError` that is not retryable: 4xx other than 401/403/408/429) goes to a dead-letter file in
 * `<spool>/rejected/` (0600), is counted and never sent again, so it cannot block the rest; so do
 * just the records a backend that stored the rest names as refused (partial success). While that
 * file cannot be written the batch stays in the spool and is retried (the backend stores its
 * records once). Never throws into its host; a tick that finds the previous one still running is
 * skipped.
 *
 * @example
 * ```ts
 * const shipper = new Shipper({ spool, sink: new HttpJsonSink({ url, token }) });
 * shipper.start();
 * // on shutdown:
 * await shipper.stop();
 * ```
 */
export class Shipper {
  private readonly spool: DiskSpool;
  private readonly sink: Sink;
  private readonly intervalMs: number;
  private readonly maxBatchRecords: number;
  private readonly maxBatchBytes: number;
  private readonly backoff: Backoff;
  private readonly now: () => number;
  private readonly log: Logger;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly abort = new AbortController();
  private nextAttemptAt = 0;
  private oldestWaiting: number | undefined;
  private readonly figures: Omit<
    ShipperStats,
    "lagSeconds" | "consecutiveFailures" | "rejectedBatches" | "rejectedRecords"
  > = {
    sentBatches: 0,
    sentRecords: 0,
    failures: 0,
    skippedTicks: 0,
    lastSuccessAt: null,
    lastError: null,
  };

  constructor(options: ShipperOptions) {
    this.spool = options.spool;
    this.sink = options.sink;
    this.intervalMs = options.intervalMs ?? 1000;
    this.maxBatchRecords = options.maxBatchRecords ?? 500;
    this.maxBatchBytes = options.maxBatchBytes ?? 4 * 1024 * 1024;
    this.backoff = new Backoff(options.backoff);
    this.now = options.now ?? Date.now;
    this.log = options.logger ?? silentLogger;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    void this.tick();
  }

  /** Stop ticking and wait for a send in progress (aborted after `graceMs`). */
  async stop(graceMs = 5000): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    if (this.running) {
      const t = setTimeout(() => this.abort.abort(), graceMs);
      await this.running;
      clearTimeout(t);
    }
    await this.sink.close?.().catch(() => {});
  }

  /** One pass: send until the spool is empty or the backend fails. Resolves, never rejects. */
  tick(): Promise<void> {
    if (this.running) {
      this.figures.skippedTicks++;
      return this.running;
    }
    const wait = this.nextAttemptAt - this.now();
    // A wall clock stepped back (NTP) would stretch the wait by the step: no wait is longer than
    // the longest back-off.
    if (wait > 0 && wait <= this.backoff.maxMs) return Promise.resolve();
    this.running = this.pass()
      .catch((error) => {
        this.figures.failures++;
        this.figures.lastError = (error as Error).message;
        this.log.error("shipper pass failed", { error });
        this.nextAttemptAt = this.now() + this.backoff.fail();
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  private async pass(): Promise<void> {
    while (!this.abort.signal.aborted) {
      const pending = this.spool.pending;
      const records = pending
        ? await this.spool.peek({
            untilSeq: pending.lastSeq,
            maxRecords: Number.MAX_SAFE_INTEGER,
            maxBytes: Number.MAX_SAFE_INTEGER,
          })
        : await this.spool.peek({ maxRecords: this.maxBatchRecords, maxBytes: this.maxBatchBytes });
      if (records.length === 0) {
        this.oldestWaiting = undefined;
        // Everything in an interrupted batch was dropped under the size cap: close it.
        if (pending) await this.spool.ack(pending.lastSeq, 0);
        return;
      }
      this.oldestWaiting = recordTime(records[0]) ?? this.oldestWaiting ?? this.now();
      const firstSeq = pending?.firstSeq ?? records[0].seq;
      const lastSeq = pending?.lastSeq ?? records[records.length - 1].seq;
      if (!pending) await this.spool.setPending({ firstSeq, lastSeq });
      const batch = this.toBatch(records, `${this.spool.id}:${firstSeq}-${lastSeq}`);
      let refused = false;
      let rejected: IngestRejection[] = [];
      try {
        rejected = (await this.sink.send(batch, this.abort.signal))?.rejected ?? [];
      } catch (error) {
        if (error instanceof SinkError && !error.retryable) {
          // Throws (failing the pass, so the batch is retried) unless the dead letter is on disk.
          await this.deadLetter(batch, records.length, error);
          refused = true;
        } else {
          const wait = this.backoff.fail();
          this.nextAttemptAt = this.now() + wait;
          this.figures.failures++;
          this.figures.lastError = (error as Error).message;
          this.log.warn("backend unavailable; backing off", {
            error,
            retryInMs: wait,
            failures: this.backoff.failures,
          });
          return;
        }
      }
      // Throws (failing the pass, so the batch is resent and stored once) unless they are on disk.
      const refusedItems = rejected.length > 0 ? await this.deadLetterItems(batch, rejected) : 0;
      await this.spool.ack(lastSeq, records.length, {
        records: refused ? records.length : refusedItems,
        batches: refused ? 1 : 0,
      });
      if (this.backoff.failures > 0)
        this.log.info("backend reachable again", { afterFailures: this.backoff.failures });
      this.backoff.succeed();
      if (refused) continue;
      this.figures.sentBatches++;
      this.figures.sentRecords += records.length - refusedItems;
      this.figures.lastSuccessAt = new Date(this.now()).toISOString();
    }
  }

  private toBatch(records: SpoolRecord[], key: string): ShipBatch {
    const itemKey = (r: SpoolRecord) => `${this.spool.id}:${r.seq}`;
    switch (records[0].kind) {
      case "usage":
        return { kind: "usage", idempotencyKey: key, samples: records.map((r) => r.value as UsageSample) };
      case "event":
        return {
          kind: "event",
          idempotencyKey: key,
          events: records.map((r) => ({
            ...(r.value as NodeEvent),
            idempotencyKey: (r.value as NodeEvent).idempotencyKey ?? itemKey(r),
          })),
        };
      case "job":
        return {
          kind: "job",
          idempotencyKey: key,
          records: records.map((r) => ({
            ...(r.value as JobRecord),
            idempotencyKey: (r.value as JobRecord).idempotencyKey ?? itemKey(r),
          })),
        };
    }
  }

  private async deadLetter(batch: ShipBatch, count: number, error: SinkError): Promise<void> {
    const file = await this.writeDeadLetter(batch, { error: error.message, status: error.status, batch });
    this.figures.lastError = error.message;
    this.log.error("backend refused a batch for good; kept in a dead-letter file, continuing with the next", {
      error,
      key: batch.idempotencyKey,
      records: count,
      file,
    });
  }

  /**
   * Keeps the records of a stored batch that the backend refused, with why, in a dead-letter file:
   * its `batch` holds just them, and `rejected` names their fields by their place in it. Returns
   * how many records that is.
   */
  private async deadLetterItems(batch: ShipBatch, rejected: IngestRejection[]): Promise<number> {
    const sent = [...new Set(rejected.map((r) => r.index))].sort((a, b) => a - b);
    const prefix = `/${ITEMS_KEY[batch.kind]}/`;
    const kept = rejected.map((r) => {
      const at = sent.indexOf(r.index);
      const head = `${prefix}${r.index}`;
      const inItem = r.path === head || r.path.startsWith(`${head}/`);
      return { ...r, index: at, path: inItem ? `${prefix}${at}${r.path.slice(head.length)}` : r.path };
    });
    const error = `the backend stored the batch but refused ${sent.length} of its records`;
    const file = await this.writeDeadLetter(batch, {
      error,
      status: 200,
      batch: batchWith(batch, sent),
      rejected: kept,
    });
    this.figures.lastError = `${error}: ${rejected[0].path}: ${rejected[0].message}`;
    this.log.error("backend refused records of a batch for good; kept in a dead-letter file, not resent", {
      key: batch.idempotencyKey,
      records: sent.length,
      first: rejected[0],
      file,
    });
    return sent.length;
  }

  private async writeDeadLetter(batch: ShipBatch, content: object): Promise<string> {
    const dir = join(this.spool.dir, "rejected");
    await makePrivateDir(dir);
    const file = join(dir, `${batch.idempotencyKey.replace(/[^A-Za-z0-9.-]/g, "_")}.json`);
    await writeFileAtomic(file, JSON.stringify(content));
    return file;
  }

  stats(): ShipperStats {
    const lag = this.oldestWaiting === undefined ? 0 : Math.max(0, (this.now() - this.oldestWaiting) / 1000);
    const rejected = this.spool.rejected;
    return {
      ...this.figures,
      rejectedBatches: rejected.batches,
      rejectedRecords: rejected.records,
      consecutiveFailures: this.backoff.failures,
      lagSeconds: lag,
    };
  }
}
