import { type Logger, silentLogger } from "../log/logger.js";
import type { DiskSpool } from "./disk-spool.js";
import type { SpoolKind } from "./frame.js";

/** One record to spool. */
export type SpoolItem = { kind: SpoolKind; value: unknown };

/** Options of {@link QueuedSpoolWriter}. */
export type QueuedSpoolWriterOptions = {
  spool: DiskSpool;
  /** Checks a batch just before it is written; what it leaves out is dropped. @default keep all */
  check?: (items: SpoolItem[]) => SpoolItem[] | Promise<SpoolItem[]>;
  /** Wait after a failed append before trying again. @default 5000 */
  retryMs?: number;
  /** Most records kept in memory while appends fail (disk full); past it the oldest are dropped and counted. @default 10000 */
  maxPending?: number;
  /** Called with what was written. */
  onWritten?: (items: SpoolItem[]) => void;
  /** Called for each failed append (the batch is kept and retried). */
  onFailed?: (error: unknown) => void;
  logger?: Logger;
};

/**
 * Spools records pushed one by one from callbacks (watch events), one append at a time: what
 * arrives while an append runs goes into the next one, and a failed append (disk full) is kept and
 * retried after `retryMs`, up to `maxPending` records (the spool counts what is dropped past it).
 * `push` never throws and `flush` never rejects.
 *
 * @example
 * ```ts
 * const writer = new QueuedSpoolWriter({ spool });
 * writer.push("job", record);
 * await writer.close();
 * ```
 */
export class QueuedSpoolWriter {
  private readonly o: QueuedSpoolWriterOptions;
  private readonly log: Logger;
  private pending: SpoolItem[] = [];
  private flushing: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(options: QueuedSpoolWriterOptions) {
    this.o = options;
    this.log = options.logger ?? silentLogger;
  }

  push(kind: SpoolKind, value: unknown): void {
    this.pending.push({ kind, value });
    if (!this.retry) void this.flush();
  }

  /** Write what is queued now. */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    this.flushing = this.drain()
      .catch((error) => this.log.error("spooling failed", { error }))
      .finally(() => {
        this.flushing = undefined;
        // Pushed while the last append was finishing: write them too (unless waiting to retry).
        if (this.pending.length > 0 && !this.retry && !this.closed) void this.flush();
      });
    return this.flushing;
  }

  /** Stop retrying and write what is left once more. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.retry = undefined;
    await this.flushing;
    await this.flush();
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0) {
      const taken = this.pending;
      this.pending = [];
      const batch = this.o.check ? await this.o.check(taken) : taken;
      if (batch.length === 0) continue;
      try {
        await this.o.spool.append(batch);
        this.o.onWritten?.(batch);
      } catch (error) {
        this.o.onFailed?.(error);
        this.log.error("could not spool records; retrying", { error, records: batch.length });
        this.pending = [...batch, ...this.pending];
        const over = this.pending.length - (this.o.maxPending ?? 10_000);
        if (over > 0) {
          this.pending.splice(0, over);
          await this.o.spool.countDropped(over);
        }
        if (!this.closed) {
          this.retry = setTimeout(() => {
            this.retry = undefined;
            void this.flush();
          }, this.o.retryMs ?? 5000);
          this.retry.unref?.();
        }
        return;
      }
    }
  }
}
