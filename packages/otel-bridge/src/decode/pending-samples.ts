import type { SampleDraft } from "../mapping/observation-mapping.js";

// What the observation collector keeps while it gathers points into samples: no BigInt and no
// key string per point, since a body holds tens of thousands of points.

/** A sample being gathered: its identity, its time (Unix nanoseconds as two 32-bit halves). */
export class Pending {
  user: string | undefined = undefined;
  final = false;
  readonly draft: SampleDraft = { points: {} };
  /** Points by metric name, kept only for a host- or container-only sample (job id `""`). */
  metrics: Record<string, number> | undefined = undefined;
  constructor(
    readonly cluster: string,
    readonly jobId: string,
    readonly node: string,
    readonly step: string | undefined,
    readonly timeLo: number,
    readonly timeHi: number,
    /** The container of a container-only sample (job id `""`); `undefined` for any other. */
    readonly containerId: string | undefined = undefined,
  ) {}

  get unixNano(): bigint {
    return (BigInt(this.timeHi) << 32n) | BigInt(this.timeLo);
  }

  get identity(): { cluster: string; jobId: string; node: string; step?: string } {
    const { cluster, jobId, node, step } = this;
    return step === undefined ? { cluster, jobId, node } : { cluster, jobId, node, step };
  }
}

/**
 * One identity (`step` "" when absent; `containerId` only for a container-only one) and its
 * samples by time.
 */
export type Series = {
  cluster: string;
  jobId: string;
  node: string;
  step: string;
  containerId: string | undefined;
  times: Times;
};

/** The samples of one identity by time: keyed by the low 30 bits (a small integer, no allocation). */
export class Times {
  readonly #byLow = new Map<number, Pending>();
  // Times whose low bits another time of this identity already holds (nearly never).
  #collided: Map<bigint, Pending> | undefined;

  get(lo: number, hi: number): Pending | undefined {
    const found = this.#byLow.get(lo & 0x3fffffff);
    if (found === undefined || (found.timeLo === lo && found.timeHi === hi)) return found;
    return this.#collided?.get((BigInt(hi) << 32n) | BigInt(lo));
  }

  add(entry: Pending): void {
    const low = entry.timeLo & 0x3fffffff;
    if (!this.#byLow.has(low)) {
      this.#byLow.set(low, entry);
      return;
    }
    this.#collided ??= new Map();
    this.#collided.set(entry.unixNano, entry);
  }
}
