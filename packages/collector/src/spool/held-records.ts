import type { DiskSpool } from "./disk-spool.js";
import type { SpoolItem } from "./queued-spool-writer.js";

/** Options of {@link HeldRecords}. */
export type HeldRecordsOptions = {
  spool: DiskSpool;
  /** Most records held in memory while appends fail; past it the oldest are dropped and counted. @default 10000 */
  maxHeld?: number;
  /**
   * Records a later one makes redundant (a job's routine usage sample: the next round reads it
   * again): dropped and counted when an append fails, not held. @default none
   */
  redundant?: (item: SpoolItem) => boolean;
};

/**
 * Appends each round's records to the spool after those an earlier failed append (disk full)
 * left behind, in order. What a failed append cannot keep (redundant records, and the oldest
 * past `maxHeld`) is dropped and counted in the spool's `droppedSamples`, so nothing is lost
 * without a trace.
 *
 * @example
 * ```ts
 * const out = new HeldRecords({ spool, redundant: (r) => r.kind === "usage" });
 * await out.append(records); // rejects like DiskSpool.append; what it could not write is held
 * ```
 */
export class HeldRecords {
  private readonly spool: DiskSpool;
  private readonly maxHeld: number;
  private readonly redundant: ((item: SpoolItem) => boolean) | undefined;
  private held: SpoolItem[] = [];

  constructor(options: HeldRecordsOptions) {
    this.spool = options.spool;
    this.maxHeld = options.maxHeld ?? 10_000;
    this.redundant = options.redundant;
  }

  /** Records waiting for the spool to take them. */
  get count(): number {
    return this.held.length;
  }

  /**
   * Append what is held and then `items`; on failure keep what can be kept, write the count of
   * what was dropped, and rethrow.
   */
  async append(items: SpoolItem[]): Promise<void> {
    const batch = this.held.length > 0 ? [...this.held, ...items] : items;
    if (batch.length === 0) return;
    try {
      await this.spool.append(batch);
      this.held = [];
    } catch (error) {
      const keep = batch.filter((item) => !this.redundant?.(item));
      if (keep.length > this.maxHeld) keep.splice(0, keep.length - this.maxHeld);
      this.held = keep;
      // On disk before the failure is reported: a collector killed just after still counts them.
      await this.spool.countDropped(batch.length - keep.length);
      throw error;
    }
  }
}
