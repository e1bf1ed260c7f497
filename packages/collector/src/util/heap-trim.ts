import { getHeapSpaceStatistics } from "node:v8";

/** Options of {@link HeapTrim}. */
export type HeapTrimOptions = {
  /**
   * Collect once the old generation holds this many bytes more than after the last collection.
   * @default 2097152 (2 MiB)
   */
  stepBytes?: number;
  /**
   * The full collection to run; without one (Node.js started without `--expose-gc`) trimming is off.
   * @default globalThis.gc
   */
  gc?: () => void;
  /** How many bytes the old generation uses now. @default old_space of `v8.getHeapSpaceStatistics()` */
  oldSpaceUsed?: () => number;
};

function oldSpaceUsedNow(): number {
  for (const space of getHeapSpaceStatistics()) {
    if (space.space_name === "old_space") return space.space_used_size;
  }
  return 0;
}

/**
 * Keeps the old generation near what is really alive between collection rounds: left to itself,
 * V8 lets megabytes of promoted round garbage pile up, resident, before it collects (see
 * docs/performance.md).
 *
 * @example
 * ```ts
 * const trim = new HeapTrim();
 * await runRound();
 * trim.afterRound(); // collects only when the old generation grew past the step
 * ```
 */
export class HeapTrim {
  private readonly stepBytes: number;
  private readonly gc: (() => void) | undefined;
  private readonly oldSpaceUsed: () => number;
  private baseline: number;
  private count = 0;

  constructor(options: HeapTrimOptions = {}) {
    this.stepBytes = options.stepBytes ?? 2 * 1024 * 1024;
    this.gc = options.gc ?? globalThis.gc;
    this.oldSpaceUsed = options.oldSpaceUsed ?? oldSpaceUsedNow;
    this.baseline = this.gc ? this.oldSpaceUsed() : 0;
  }

  /** True when a full collection can be run (the process exposes one). */
  get enabled(): boolean {
    return this.gc !== undefined;
  }

  /** Full collections run so far. */
  get collections(): number {
    return this.count;
  }

  /** Call when a round is done: collects if the old generation grew by the step since the last time. */
  afterRound(): boolean {
    if (!this.gc) return false;
    if (this.oldSpaceUsed() - this.baseline < this.stepBytes) return false;
    this.gc();
    this.count++;
    this.baseline = this.oldSpaceUsed();
    return true;
  }
}
