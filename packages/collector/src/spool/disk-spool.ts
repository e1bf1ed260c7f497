import { join } from "node:path";
import { SpoolError } from "../errors.js";
import { type Logger, silentLogger } from "../log/logger.js";
import { ActiveSegment } from "./active-segment.js";
import { BatchReader } from "./batch-reader.js";
import { DROP_COUNT_FILE, DropCountFile } from "./drop-count-file.js";
import type { SpoolKind, SpoolRecord } from "./frame.js";
import { trimSegments } from "./segment-compaction.js";
import { SpaceReserve } from "./space-reserve.js";
import { SpentSegments } from "./spent-segments.js";
import { isDiskFull, nodeSpoolFs, type SpoolFs } from "./spool-fs.js";
import { recoverSpool, type Segment } from "./spool-recovery.js";
import { type PendingBatch, type SpoolState, SpoolStateFile } from "./spool-state.js";

/** Options of {@link DiskSpool.open}. */
export type DiskSpoolOptions = {
  /** The spool directory (created 0700 if missing, made 0700 if more open; files are 0600). */
  dir: string;
  /** Size cap; past it the oldest usage samples are dropped. @default 268435456 (256 MiB) */
  maxBytes?: number;
  /** A segment is closed and a new one started past this size. @default 4194304 (4 MiB) */
  segmentBytes?: number;
  /** fsync each appended batch (turn off only in benchmarks of other parts). @default true */
  fsync?: boolean;
  /** Structured log. @default silent */
  logger?: Logger;
  /** File-system calls for writing, renaming and deleting (tests inject a full disk). @default node:fs/promises */
  fs?: SpoolFs;
};

/** Records and batches the backend refused for good, kept in dead-letter files. */
export type RejectedCount = { records: number; batches: number };

/** Figures for health output. */
export type SpoolStats = {
  bytes: number;
  segments: number;
  /** Records not yet acknowledged. */
  unacked: number;
  ackedSeq: number;
  lastSeq: number;
  /** Records dropped: the oldest usage samples under the size cap, and what could not be kept while the disk was full. */
  droppedSamples: number;
  /** Why the last write failed (e.g. the disk is full); null once writing works again. */
  writeError: string | null;
  /** Bytes cut from segment tails at open because a frame was torn or failed its checksum. */
  discardedBytes: number;
};

/**
 * A durable on-disk spool: records are appended as checksummed frames to segment files and
 * fsynced per batch; they are removed only once acknowledged. A torn write (crash mid-append) is
 * found by its checksum at the next open, cut off, and never replayed. Past the size cap the
 * oldest usage samples are dropped, job records and node events are kept, and drops are counted.
 * A full disk fails the append at hand (`SPOOL_FULL`) and nothing else: what was appended before
 * stays whole, acknowledged segments are still deleted (a failed deletion is retried), and state
 * that could not be written is written by a later operation. Operations run one at a time, so
 * collection and shipping can share one spool.
 *
 * @example
 * ```ts
 * const spool = await DiskSpool.open({ dir: "/var/lib/jobsight/spool" });
 * await spool.append([{ kind: "usage", value: sample }]);
 * const batch = await spool.peek({ maxRecords: 500 });
 * // …after the backend acknowledged it:
 * await spool.ack(batch.at(-1)!.seq);
 * ```
 */
export class DiskSpool {
  readonly dir: string;
  /** Random id of this spool, part of every idempotency key it produces. */
  readonly id: string;
  private readonly maxBytes: number;
  private readonly segmentBytes: number;
  private readonly fsync: boolean;
  private readonly log: Logger;
  private readonly fs: SpoolFs;
  private segments: Segment[] = [];
  private readonly file: SpoolStateFile;
  private readonly state: SpoolState;
  private nextSeq: number;
  private unacked: number;
  private discardedBytes: number;
  private active: ActiveSegment | undefined;
  private readonly spent: SpentSegments;
  private readonly reserve: SpaceReserve;
  private readonly dropCount: DropCountFile;
  private writeError: string | null = null;
  private readonly reader = new BatchReader();
  private queue: Promise<unknown> = Promise.resolve();
  private capWarned = false;

  private constructor(
    options: DiskSpoolOptions,
    id: string,
    state: SpoolState,
    segments: Segment[],
    meta: { nextSeq: number; unacked: number; discarded: number },
  ) {
    this.dir = options.dir;
    this.id = id;
    this.maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
    this.segmentBytes = options.segmentBytes ?? 4 * 1024 * 1024;
    this.fsync = options.fsync ?? true;
    this.log = options.logger ?? silentLogger;
    this.fs = options.fs ?? nodeSpoolFs;
    this.spent = new SpentSegments(options.dir, this.fs, this.log);
    this.reserve = new SpaceReserve(join(options.dir, "reserve"), this.fs);
    this.dropCount = new DropCountFile(join(options.dir, DROP_COUNT_FILE), this.fs);
    this.file = new SpoolStateFile(join(options.dir, "state.json"), state, this.log, this.fs, this.reserve);
    this.state = state;
    this.segments = segments;
    this.nextSeq = meta.nextSeq;
    this.unacked = meta.unacked;
    this.discardedBytes = meta.discarded;
  }

  /** Open (or create) a spool, verifying every segment and cutting off torn tails. */
  static async open(options: DiskSpoolOptions): Promise<DiskSpool> {
    try {
      const r = await recoverSpool(options.dir, options.logger ?? silentLogger, options.fs);
      const spool = new DiskSpool(options, r.id, r.state, r.segments, r);
      // Drops counted on a full disk may be only in the drop-count file: the count only grows.
      const counted = await spool.dropCount.load();
      if (counted > r.state.droppedSamples) {
        r.state.droppedSamples = counted;
        spool.file.markUnsaved();
      }
      await spool.dropCount.prepare(r.state.droppedSamples);
      if (!(await spool.reserve.fill())) spool.log.warn("spool disk full at start; appending waits for room");
      return spool;
    } catch (error) {
      throw new SpoolError(`cannot open spool ${options.dir}: ${(error as Error).message}`, { cause: error });
    }
  }

  private serial<T>(op: () => Promise<T>): Promise<T> {
    const run = this.queue.then(op, op);
    this.queue = run.catch(() => {});
    return run;
  }

  /** The batch sent but not acknowledged before, if any: resend exactly it. */
  get pending(): PendingBatch | null {
    return this.state.pending;
  }

  /**
   * Append records durably (one write and one fsync for the whole batch); resolves once they are
   * on disk. Returns their sequence numbers. Rejects with `SPOOL_FULL` when the disk is full, and
   * then nothing of the batch was kept.
   */
  append(items: { kind: SpoolKind; value: unknown }[]): Promise<number[]> {
    return this.serial(async () => {
      if (items.length === 0) return [];
      await this.tidy();
      const first = this.nextSeq;
      try {
        // The room the reserve would take is kept for recording sends and acknowledgements.
        if (!(await this.reserve.fill()))
          throw Object.assign(new Error("ENOSPC: no room for the spool's reserve"), { code: "ENOSPC" });
        if (!this.active || this.active.seg.bytes >= this.segmentBytes) await this.rotate();
        await this.active!.append(items, first, this.fsync);
      } catch (error) {
        throw this.failed("cannot append to spool", error);
      }
      this.writeError = null;
      this.nextSeq += items.length;
      this.unacked += items.length;
      // The batch is on disk: failing to trim the spool (disk full) must not fail its append.
      if (this.totalBytes() > this.maxBytes)
        await this.enforceCap().catch((error) =>
          this.log.warn("cannot trim the spool to its cap", { error }),
        );
      return items.map((_, i) => first + i);
    });
  }

  /**
   * Count records a caller had to drop because the spool could not take them (disk full);
   * reported in `droppedSamples` with those dropped under the size cap. Resolves once the count
   * is on disk: overwritten in place in the drop-count file, which needs no new room however full
   * the disk is (others may take the room the reserve gave back), then with the spool's state. So
   * a collector killed right after reporting the drop still counts it. A write that fails is done
   * again by the next operation; never rejects.
   */
  countDropped(count: number): Promise<void> {
    if (count <= 0) return Promise.resolve();
    this.addDropped(count);
    return this.serial(async () => {
      await this.dropCount.write(this.state.droppedSamples);
      await this.file.save();
    });
  }

  private addDropped(count: number): void {
    this.state.droppedSamples += count;
    this.file.markUnsaved();
  }

  private failed(message: string, error: unknown): SpoolError {
    this.writeError = (error as Error).message;
    const code = isDiskFull(error) ? "SPOOL_FULL" : "SPOOL_IO";
    return new SpoolError(`${message}: ${this.writeError}`, { cause: error, code });
  }

  private async rotate(): Promise<void> {
    await this.closeActive();
    this.active = await ActiveSegment.create(this.dir, this.nextSeq, this.fs);
    this.segments.push(this.active.seg);
  }

  private totalBytes(): number {
    return this.segments.reduce((n, s) => n + s.bytes, 0);
  }

  /** Drop the oldest usage samples until the spool is under 90% of its cap. */
  private async enforceCap(): Promise<void> {
    const droppedBefore = this.state.droppedSamples;
    await trimSegments(this.segments, {
      dir: this.dir,
      ackedSeq: this.state.ackedSeq,
      targetBytes: Math.floor(this.maxBytes * 0.9),
      fs: this.fs,
      release: async (seg) => {
        this.reader.forget(seg.id);
        // The active segment is closed first so a rewrite never races an append.
        if (this.active?.seg === seg) await this.rotate();
      },
      dropped: (n) => {
        if (n === 0) return;
        this.unacked = Math.max(0, this.unacked - n);
        // Written with the trimmed segments' state just below.
        this.addDropped(n);
        this.log.warn("spool over its size cap: dropped the oldest usage samples", {
          dropped: n,
          total: this.state.droppedSamples,
        });
      },
    });
    await this.file.save();
    if (this.state.droppedSamples > droppedBefore) await this.dropCount.write(this.state.droppedSamples);
    if (this.totalBytes() > this.maxBytes && !this.capWarned) {
      this.capWarned = true;
      this.log.error("spool is over its size cap with job records and events only; keeping them", {
        bytes: this.totalBytes(),
        maxBytes: this.maxBytes,
      });
    }
  }

  /**
   * The oldest records not yet acknowledged, in order: at most `maxRecords`/`maxBytes`, all of one
   * kind (the first record's), and none past `untilSeq`.
   */
  peek(options: { maxRecords?: number; maxBytes?: number; untilSeq?: number } = {}): Promise<SpoolRecord[]> {
    return this.serial(async () => {
      await this.tidy();
      return this.reader.read(this.segments, {
        ackedSeq: this.state.ackedSeq,
        maxRecords: options.maxRecords ?? 1000,
        maxBytes: options.maxBytes ?? 4 * 1024 * 1024,
        untilSeq: options.untilSeq ?? Number.MAX_SAFE_INTEGER,
      });
    });
  }

  /**
   * Remember the bounds of a batch about to be sent, so a restart resends exactly it. Rejects
   * (`SPOOL_FULL` when the disk is full) unless they are on disk: the batch must not be sent then.
   */
  setPending(batch: PendingBatch): Promise<void> {
    return this.serial(async () => {
      const pending = { ...batch };
      try {
        await this.file.write({ ...this.state, pending });
      } catch (error) {
        throw this.failed("cannot record the batch being sent", error);
      }
      this.state.pending = pending;
    });
  }

  /**
   * The backend stored everything up to `lastSeq`: forget it and delete spent segments. Resolves
   * even when the acknowledgement cannot be written (disk full); it is written by a later operation.
   * `rejected` counts what of it the backend refused for good (kept in dead-letter files): written
   * in the same state as the acknowledgement, so a restart neither forgets nor recounts it.
   */
  ack(lastSeq: number, count?: number, rejected?: RejectedCount): Promise<void> {
    return this.serial(async () => {
      if (lastSeq <= this.state.ackedSeq) return;
      this.state.ackedSeq = lastSeq;
      this.state.rejectedRecords += rejected?.records ?? 0;
      this.state.rejectedBatches += rejected?.batches ?? 0;
      if (this.state.pending && this.state.pending.lastSeq <= lastSeq) this.state.pending = null;
      this.unacked = Math.max(0, this.unacked - (count ?? 0));
      await this.file.save();
      await this.deleteSpent();
    });
  }

  /** Work a full disk left undone: the state, and segments that could not be deleted. */
  private async tidy(): Promise<void> {
    if (this.file.unsaved) await this.file.save();
    await this.deleteSpent();
  }

  /**
   * Delete segments whose records are all acknowledged, and retry deletions that failed. Only up
   * to what the state on disk covers: recovery numbers new records past it, so keys stay unique.
   */
  private async deleteSpent(): Promise<void> {
    const upTo = this.file.deletableUpTo;
    const spent = this.segments.filter((s) => s.lastSeq <= upTo && s.bytes > 0);
    if (spent.length > 0) {
      this.segments = this.segments.filter((s) => !spent.includes(s));
      if (this.active && spent.includes(this.active.seg)) await this.closeActive();
    }
    await this.spent.delete(spent.map((s) => s.path));
  }

  private async closeActive(): Promise<void> {
    const active = this.active;
    this.active = undefined;
    await active?.close().catch(() => {});
  }

  /** What the backend refused for good since the spool was created, as acknowledged with {@link ack}. */
  get rejected(): RejectedCount {
    return { records: this.state.rejectedRecords, batches: this.state.rejectedBatches };
  }

  stats(): SpoolStats {
    return {
      bytes: this.totalBytes(),
      segments: this.segments.length,
      unacked: this.unacked,
      ackedSeq: this.state.ackedSeq,
      lastSeq: this.nextSeq - 1,
      droppedSamples: this.state.droppedSamples,
      writeError: this.writeError ?? this.file.error,
      discardedBytes: this.discardedBytes,
    };
  }

  /** Write what a full disk left undone, if it can now, and close the active segment. */
  close(): Promise<void> {
    return this.serial(async () => {
      await this.tidy();
      await this.closeActive();
    });
  }
}
