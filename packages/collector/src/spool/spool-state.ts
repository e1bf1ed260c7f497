import { readFile } from "node:fs/promises";
import type { Logger } from "../log/logger.js";
import { writeFileAtomic } from "./atomic-file.js";
import type { SpaceReserve } from "./space-reserve.js";
import { isDiskFull, type SpoolFs } from "./spool-fs.js";

/** A batch handed to the backend but not yet acknowledged; resent with the same bounds after a restart. */
export type PendingBatch = { firstSeq: number; lastSeq: number };

/** What the spool keeps beside its segments. */
export type SpoolState = {
  /** Every record up to and including this sequence was acknowledged by the backend. */
  ackedSeq: number;
  pending: PendingBatch | null;
  /**
   * Records dropped since the spool was created: the oldest usage samples under the size cap, and
   * records a collector could not keep while the disk was full.
   */
  droppedSamples: number;
  /**
   * Records the backend refused for good, each kept in a dead-letter file, since the spool was
   * created; written with the acknowledgement that moved past them, so none is counted twice.
   */
  rejectedRecords: number;
  /** Batches the backend refused whole for good, counted the same way. */
  rejectedBatches: number;
};

/** Read the state file; a missing file is a fresh spool, an unreadable one is reported. */
export async function readSpoolState(path: string): Promise<{ state: SpoolState; problem?: string }> {
  const fresh: SpoolState = {
    ackedSeq: 0,
    pending: null,
    droppedSamples: 0,
    rejectedRecords: 0,
    rejectedBatches: 0,
  };
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { state: fresh };
    return { state: fresh, problem: `cannot read ${path}: ${(error as Error).message}` };
  }
  try {
    const s = JSON.parse(text) as Partial<SpoolState>;
    const ok = (n: unknown): n is number => typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
    if (!ok(s.ackedSeq)) throw new Error("ackedSeq missing");
    const pending =
      s.pending && ok(s.pending.firstSeq) && ok(s.pending.lastSeq) && s.pending.firstSeq <= s.pending.lastSeq
        ? { firstSeq: s.pending.firstSeq, lastSeq: s.pending.lastSeq }
        : null;
    const count = (n: unknown) => (ok(n) ? n : 0);
    return {
      state: {
        ackedSeq: s.ackedSeq,
        pending,
        droppedSamples: count(s.droppedSamples),
        rejectedRecords: count(s.rejectedRecords),
        rejectedBatches: count(s.rejectedBatches),
      },
    };
  } catch (error) {
    return { state: fresh, problem: `unreadable ${path}: ${(error as Error).message}` };
  }
}

/** Write the state file atomically and durably. */
export function writeSpoolState(path: string, state: SpoolState, fs?: SpoolFs): Promise<void> {
  return writeFileAtomic(path, `${JSON.stringify(state)}\n`, fs);
}

/**
 * The spool's state in memory, and what of it is on disk. On a full disk a write gives up the
 * space reserve and tries once more; a `save` that still fails is remembered and done again by
 * the next one, and never throws.
 *
 * @example
 * ```ts
 * const file = new SpoolStateFile("/var/lib/jobsight/spool/state.json", state, log, fs, reserve);
 * file.state.ackedSeq = 42;
 * await file.save();
 * ```
 */
export class SpoolStateFile {
  /** The last write's error; null after a write that worked. */
  error: string | null = null;
  private durable: { ackedSeq: number; pendingLast: number };
  private dirty = false;

  constructor(
    private readonly path: string,
    readonly state: SpoolState,
    private readonly log: Logger,
    private readonly fs?: SpoolFs,
    private readonly reserve?: SpaceReserve,
  ) {
    this.durable = { ackedSeq: state.ackedSeq, pendingLast: state.pending?.lastSeq ?? 0 };
  }

  /**
   * The highest sequence whose segments may be deleted: acknowledged, and covered by the state on
   * disk, past which recovery numbers new records (so idempotency keys are never reused).
   */
  get deletableUpTo(): number {
    return Math.min(this.state.ackedSeq, Math.max(this.durable.ackedSeq, this.durable.pendingLast));
  }

  /** Whether the state changed since it was last written. */
  get unsaved(): boolean {
    return this.dirty;
  }

  markUnsaved(): void {
    this.dirty = true;
  }

  /** Write the state; a failure is logged once, remembered and retried by the next call. */
  async save(): Promise<void> {
    const wasDirty = this.dirty;
    // Cleared first: a change made while the write runs marks the state unsaved again.
    this.dirty = false;
    try {
      await this.write(this.state);
      if (wasDirty) this.log.info("spool state written again");
    } catch (error) {
      this.dirty = true;
      if (!wasDirty)
        this.log.warn("cannot write the spool state; retrying with the next operation", { error });
    }
  }

  /** Write `next` (which need not be the state in memory yet); throws when it cannot. */
  async write(next: SpoolState): Promise<void> {
    try {
      await writeSpoolState(this.path, next, this.fs).catch(async (error) => {
        if (!isDiskFull(error) || !(await this.reserve?.release())) throw error;
        this.log.warn("spool disk full: gave up the space reserve to keep shipping");
        await writeSpoolState(this.path, next, this.fs);
      });
    } catch (error) {
      this.error = (error as Error).message;
      throw error;
    }
    this.error = null;
    this.durable = { ackedSeq: next.ackedSeq, pendingLast: next.pending?.lastSeq ?? 0 };
  }
}
