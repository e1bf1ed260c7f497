import type { HistoryJob } from "../history-job.js";

/** A job of a group that was killed for memory and not yet followed by a run that completed. */
export type MemoryKill = {
  /** The killed job's id. */
  jobId: string;
  /** Unix seconds it ended. */
  end: number;
  /** What it needed more than: the larger of its limit and the peak seen before the kill, bytes. */
  lowerBoundBytes: number;
};

/** Options of {@link RecentMemoryKills}. */
export type RecentMemoryKillsOptions = {
  /**
   * How long a kill stays recent, seconds: a resubmission later than that is no longer taken for
   * the same attempt.
   * @default 604800 (7 days)
   */
  windowSeconds?: number;
  /**
   * The step above the lower bound that is recommended (1.5: half again what it died with).
   * @default 1.5
   */
  factor?: number;
};

/**
 * The last memory kill of each application (same user, same executable or job name), until a
 * later run of it completes. A job killed for memory only tells that it needed more than it had;
 * its resubmission must not be told to ask for that again, whatever the model says or whether
 * there is a model at all. Also counts, site-wide, how often the run that followed a kill fitted
 * under `factor` × the kill's lower bound: the confidence such a step deserves on this site,
 * learned from the site's own retries (a rule of succession: ½ with none seen yet).
 *
 * @example
 * ```ts
 * const kills = new RecentMemoryKills();
 * kills.observeEnded(killedJob, appKey); // outcome "oom"
 * kills.recent(appKey, now); // { jobId, end, lowerBoundBytes }
 * ```
 */
export class RecentMemoryKills {
  readonly windowSeconds: number;
  readonly factor: number;
  readonly #kills = new Map<string, MemoryKill>();
  /** Completed runs that followed a kill of their application, and how many fitted under the step. */
  #followUps = 0;
  #fitted = 0;

  constructor(options: RecentMemoryKillsOptions = {}) {
    this.windowSeconds = options.windowSeconds ?? 604_800;
    this.factor = options.factor ?? 1.5;
    if (!(this.windowSeconds > 0)) throw new RangeError("windowSeconds: must be positive");
    if (!(this.factor > 1)) throw new RangeError("factor: must be greater than 1");
  }

  /**
   * Adds an ended job (in end order) of the application `appKey`; jobs without a named
   * executable have no application and are not followed (`appKey` undefined).
   */
  observeEnded(job: HistoryJob, appKey: string | undefined): void {
    if (appKey === undefined) return;
    if (job.outcome === "oom") {
      const bound = Math.max(job.used.memoryBytes ?? 0, job.requested.memoryBytes ?? 0);
      if (bound > 0) this.#kills.set(appKey, { jobId: job.id, end: job.endTime, lowerBoundBytes: bound });
      return;
    }
    if (job.outcome !== "completed") return;
    const kill = this.#kills.get(appKey);
    if (!kill) return;
    this.#kills.delete(appKey);
    const used = job.used.memoryBytes;
    if (used === undefined || !(job.endTime - kill.end <= this.windowSeconds)) return;
    this.#followUps++;
    if (used <= kill.lowerBoundBytes * this.factor) this.#fitted++;
  }

  /** The application's kill if it is still recent at `now` (Unix seconds). */
  recent(appKey: string | undefined, now: number): MemoryKill | undefined {
    if (appKey === undefined) return undefined;
    const kill = this.#kills.get(appKey);
    return kill && now - kill.end <= this.windowSeconds ? kill : undefined;
  }

  /** The probability that a retry fits under `factor` × the kill's lower bound, from this site's retries. */
  get confidence(): number {
    return (this.#fitted + 1) / (this.#followUps + 2);
  }

  /** Completed runs seen after a kill of their application (what {@link confidence} rests on). */
  get followUps(): number {
    return this.#followUps;
  }
}
