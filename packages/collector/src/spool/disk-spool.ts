import { open, unlink } from "node:fs/promises";
import { join } from "node:path";
import { SpoolError } from "../errors.js";
import { type Logger, silentLogger } from "../log/logger.js";
import { syncDirectory } from "./atomic-file.js";
import { encodeFrame, type SpoolKind, type SpoolRecord } from "./frame.js";
import { compactSegment } from "./segment-compaction.js";
import { scanSegment } from "./segment-scan.js";
import { recoverSpool, type Segment, segmentName } from "./spool-recovery.js";
import { type PendingBatch, type SpoolState, writeSpoolState } from "./spool-state.js";

/** Options of {@link DiskSpool.open}. */
export type DiskSpoolOptions = {
  /** The spool directory (created if missing). */
  dir: string;
  /** Size cap; past it the oldest usage samples are dropped. @default 268435456 (256 MiB) */
  maxBytes?: number;
  /** A segment is closed and a new one started past this size. @default 4194304 (4 MiB) */
  segmentBytes?: number;
  /** fsync each appended batch (turn off only in benchmarks of other parts). @default true */
  fsync?: boolean;
  /** Structured log. @default silent */
  logger?: Logger;
};

/** Figures for health output. */
export type SpoolStats = {
  bytes: number;
  segments: number;
  /** Records not yet acknowledged. */
  unacked: number;
  ackedSeq: number;
  lastSeq: number;
  droppedSamples: number;
  /** Bytes cut from segment tails at open because a frame was torn or failed its checksum. */
  discardedBytes: number;
};

/**
 * A durable on-disk spool: records are appended as checksummed frames to segment files and
 * fsynced per batch; they are removed only once acknowledged. A torn write (crash mid-append) is
 * found by its checksum at the next open, cut off, and never replayed. Past the size cap the
 * oldest usage samples are dropped, job records and node events are kept, and drops are counted.
 * Operations run one at a time, so collection and shipping can share one spool.
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
  private readonly statePath: string;
  private segments: Segment[] = [];
  private state: SpoolState;
  private nextSeq: number;
  private unacked: number;
  private discardedBytes: number;
  private active: { seg: Segment; fh: Awaited<ReturnType<typeof open>> } | undefined;
  private hint: { id: number; gen: number; offset: number; seq: number } | undefined;
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
    this.statePath = join(options.dir, "state.json");
    this.state = state;
    this.segments = segments;
    this.nextSeq = meta.nextSeq;
    this.unacked = meta.unacked;
    this.discardedBytes = meta.discarded;
  }

  /** Open (or create) a spool, verifying every segment and cutting off torn tails. */
  static async open(options: DiskSpoolOptions): Promise<DiskSpool> {
    try {
      const r = await recoverSpool(options.dir, options.logger ?? silentLogger);
      return new DiskSpool(options, r.id, r.state, r.segments, r);
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
   * on disk. Returns their sequence numbers.
   */
  append(items: { kind: SpoolKind; value: unknown }[]): Promise<number[]> {
    return this.serial(async () => {
      if (items.length === 0) return [];
      if (!this.active || this.active.seg.bytes >= this.segmentBytes) await this.rotate();
      const seg = this.active!.seg;
      const seqs: number[] = [];
      const frames = items.map((item) => {
        const seq = this.nextSeq++;
        seqs.push(seq);
        if (item.kind === "usage") seg.usage++;
        return encodeFrame(seq, item.kind, item.value);
      });
      let length = 0;
      for (const f of frames) length += f.length;
      try {
        // One gathered write instead of concatenating the frames: no batch-sized copy per round.
        await this.active!.fh.writev(frames, seg.bytes);
        if (this.fsync) await this.active!.fh.datasync();
      } catch (error) {
        // The tail may be half written: cut it back so the next append starts on a frame boundary.
        await this.active!.fh.truncate(seg.bytes).catch(() => {});
        this.nextSeq = seqs[0];
        throw new SpoolError(`cannot append to spool: ${(error as Error).message}`, { cause: error });
      }
      if (seg.bytes === 0) seg.firstSeq = seqs[0];
      seg.bytes += length;
      seg.lastSeq = seqs[seqs.length - 1];
      this.unacked += items.length;
      if (this.totalBytes() > this.maxBytes) await this.enforceCap();
      return seqs;
    });
  }

  private async rotate(): Promise<void> {
    if (this.active) {
      await this.active.fh.close();
      this.active = undefined;
    }
    const id = this.nextSeq;
    const path = join(this.dir, segmentName(id, 0));
    const fh = await open(path, "w");
    const seg: Segment = { id, gen: 0, path, bytes: 0, firstSeq: id, lastSeq: id - 1, usage: 0 };
    this.segments.push(seg);
    this.active = { seg, fh };
    await syncDirectory(this.dir);
  }

  private totalBytes(): number {
    let n = 0;
    for (const s of this.segments) n += s.bytes;
    return n;
  }

  /** Drop the oldest usage samples, segment by segment, until the spool is under 90% of its cap. */
  private async enforceCap(): Promise<void> {
    const target = Math.floor(this.maxBytes * 0.9);
    for (const seg of [...this.segments]) {
      if (this.totalBytes() <= target) break;
      if (seg.usage === 0) continue;
      // The active segment is closed first so a rewrite never races an append.
      if (this.active?.seg === seg) await this.rotate();
      await this.compact(seg, this.totalBytes() - target);
    }
    if (this.totalBytes() > this.maxBytes && !this.capWarned) {
      this.capWarned = true;
      this.log.error("spool is over its size cap with job records and events only; keeping them", {
        bytes: this.totalBytes(),
        maxBytes: this.maxBytes,
      });
    }
  }

  /** Compact `seg` (see {@link compactSegment}) and account for what it dropped. */
  private async compact(seg: Segment, bytesToFree: number): Promise<void> {
    const { dropped, segment } = await compactSegment(seg, {
      dir: this.dir,
      ackedSeq: this.state.ackedSeq,
      bytesToFree,
    });
    this.unacked = Math.max(0, this.unacked - dropped);
    this.state.droppedSamples += dropped;
    if (dropped > 0) {
      this.log.warn("spool over its size cap: dropped the oldest usage samples", {
        dropped,
        total: this.state.droppedSamples,
      });
    }
    // Updated in place: `this.segments` holds this very object.
    if (segment === null) this.segments = this.segments.filter((s) => s !== seg);
    else Object.assign(seg, segment);
    if (this.hint?.id === seg.id) this.hint = undefined;
    await writeSpoolState(this.statePath, this.state);
  }

  /**
   * The oldest records not yet acknowledged, in order: at most `maxRecords`/`maxBytes`, all of one
   * kind (the first record's), and none past `untilSeq`.
   */
  peek(options: { maxRecords?: number; maxBytes?: number; untilSeq?: number } = {}): Promise<SpoolRecord[]> {
    return this.serial(async () => {
      const maxRecords = options.maxRecords ?? 1000;
      const maxBytes = options.maxBytes ?? 4 * 1024 * 1024;
      const until = options.untilSeq ?? Number.MAX_SAFE_INTEGER;
      const out: SpoolRecord[] = [];
      let bytes = 0;
      let done = false;
      const from = this.state.ackedSeq + 1;
      for (const seg of this.segments) {
        if (done) break;
        if (seg.lastSeq < from || seg.bytes === 0) continue;
        const start =
          this.hint && this.hint.id === seg.id && this.hint.gen === seg.gen && this.hint.seq < from
            ? this.hint.offset
            : 0;
        await scanSegment(seg.path, start, (f, payload) => {
          if (f.offset + f.length > seg.bytes) return false;
          if (f.seq < from) return true;
          if (
            f.seq > until ||
            out.length >= maxRecords ||
            (out.length > 0 && (f.kind !== out[0].kind || bytes + f.length > maxBytes))
          ) {
            done = true;
            return false;
          }
          out.push({ seq: f.seq, kind: f.kind, value: JSON.parse(payload.toString("utf8")) });
          bytes += f.length;
          this.hint = { id: seg.id, gen: seg.gen, offset: f.offset + f.length, seq: f.seq };
          return true;
        });
      }
      return out;
    });
  }

  /** Remember the bounds of a batch about to be sent, so a restart resends exactly it. */
  setPending(batch: PendingBatch): Promise<void> {
    return this.serial(async () => {
      this.state.pending = { ...batch };
      await writeSpoolState(this.statePath, this.state);
    });
  }

  /** The backend stored everything up to `lastSeq`: forget it, durably, and delete spent segments. */
  ack(lastSeq: number, count?: number): Promise<void> {
    return this.serial(async () => {
      if (lastSeq <= this.state.ackedSeq) return;
      this.state.ackedSeq = lastSeq;
      if (this.state.pending && this.state.pending.lastSeq <= lastSeq) this.state.pending = null;
      this.unacked = Math.max(0, this.unacked - (count ?? 0));
      await writeSpoolState(this.statePath, this.state);
      const spent = this.segments.filter((s) => s.lastSeq <= lastSeq && s.bytes > 0);
      for (const seg of spent) {
        if (this.active?.seg === seg) {
          await this.active.fh.close();
          this.active = undefined;
        }
        await unlink(seg.path).catch(() => {});
      }
      if (spent.length > 0) {
        this.segments = this.segments.filter((s) => !spent.includes(s));
        await syncDirectory(this.dir);
      }
    });
  }

  stats(): SpoolStats {
    return {
      bytes: this.totalBytes(),
      segments: this.segments.length,
      unacked: this.unacked,
      ackedSeq: this.state.ackedSeq,
      lastSeq: this.nextSeq - 1,
      droppedSamples: this.state.droppedSamples,
      discardedBytes: this.discardedBytes,
    };
  }

  /** Close the active segment. */
  close(): Promise<void> {
    return this.serial(async () => {
      await this.active?.fh.close();
      this.active = undefined;
    });
  }
}
