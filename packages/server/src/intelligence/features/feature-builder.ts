import type { HistoryJob } from "../history-job.js";
import { isCensored, type ResourceSpec } from "../resources.js";
import { FEATURE_NAMES, groupFeatureOffset, writeGroupFeatures } from "./group-features.js";
import { GroupHistory } from "./group-history.js";
import { GROUP_LEVELS, type GroupKeys, type GroupLevel, groupKeys } from "./group-keys.js";

/** Options of {@link FeatureBuilder}. */
export type FeatureBuilderOptions = {
  /**
   * Exact values kept per group.
   * @default 32
   */
  window?: number;
  /**
   * Half-life of the decaying weights of the decayed percentile, in seconds.
   * @default 86400
   */
  halfLifeSeconds?: number;
};

/** What the builder knows of a group at a job's submit time, for evidence and abstention. */
export type GroupSummary = { level: GroupLevel; jobs: number; censoredJobs: number; since: number };

/**
 * Turns a job about to run into a feature row for one resource, from the history of the jobs that
 * have already ended. Callers feed ended jobs with {@link observeEnded} in end-time order and ask
 * for features with {@link features}; the builder never sees a job before it ended, which is what
 * keeps the backtest honest and the server identical to it.
 *
 * @example
 * ```ts
 * const fb = new FeatureBuilder(resourceSpec("memory"));
 * fb.observeEnded(pastJob);
 * const row = fb.features(newJob);
 * ```
 */
export class FeatureBuilder {
  readonly names = FEATURE_NAMES;
  readonly #groups = new Map<string, GroupHistory>();
  readonly #window: number;
  readonly #halfLife: number;

  constructor(
    readonly spec: ResourceSpec,
    options: FeatureBuilderOptions = {},
  ) {
    this.#window = options.window ?? 32;
    this.#halfLife = options.halfLifeSeconds ?? 86_400;
  }

  /**
   * Adds a job that has ended to the history of its groups; `keys` (the job's {@link groupKeys})
   * spare computing them again when several builders see the same job.
   */
  observeEnded(job: HistoryJob, keys?: GroupKeys): void {
    const value = this.spec.target(job);
    if (value === undefined) return;
    const groups = keys ?? groupKeys(job);
    const censored = isCensored(job);
    const logValue = Math.log(value);
    const req = this.spec.request(job);
    const scale = this.spec.scale(job);
    for (const level of GROUP_LEVELS) {
      const key = groups[level];
      if (key === undefined) continue;
      let g = this.#groups.get(key);
      if (!g) {
        g = new GroupHistory(this.#window);
        this.#groups.set(key, g);
      }
      if (censored) g.addCensored(logValue, job.endTime);
      else
        g.addExact(
          logValue,
          req === undefined ? Number.NaN : Math.log(req),
          scale === undefined ? Number.NaN : Math.log(scale),
          job.endTime,
        );
    }
  }

  /**
   * The feature row of `job` at its submit time, in {@link FEATURE_NAMES} order. `keys` are the
   * job's {@link groupKeys}, passed by callers that ask several builders about one job. Nothing in
   * it depends on the moment asked, only on the job and the history: the same submission gets the
   * same row until another job of its groups ends.
   */
  features(
    job: HistoryJob,
    out: Float32Array = new Float32Array(FEATURE_NAMES.length),
    keys: GroupKeys = groupKeys(job),
  ): Float32Array {
    const req = this.spec.request(job);
    const scale = this.spec.scale(job);
    const logReq = req === undefined ? Number.NaN : Math.log(req);
    const logScale = scale === undefined ? Number.NaN : Math.log(scale);
    const r = job.requested;
    out[0] = logReq;
    out[1] = logScale;
    out[2] = r.cores !== undefined ? Math.log(r.cores) : Number.NaN;
    out[3] = r.walltimeSeconds !== undefined ? Math.log(r.walltimeSeconds) : Number.NaN;
    out[4] = r.memoryBytes !== undefined ? Math.log(r.memoryBytes) : Number.NaN;
    out[5] = job.queue !== undefined ? Number(job.queue) : Number.NaN;
    out[6] = job.partition !== undefined ? Number(job.partition) : Number.NaN;
    const ctx = { halfLife: this.#halfLife, logRequest: logReq, logScale };
    for (const level of GROUP_LEVELS) {
      const key = keys[level];
      const g = key === undefined ? undefined : this.#groups.get(key);
      writeGroupFeatures(out, groupFeatureOffset(level), g, ctx);
    }
    return out;
  }

  /** The most specific group with at least `minJobs` exact values, for evidence. */
  summary(job: HistoryJob, minJobs: number, keys: GroupKeys = groupKeys(job)): GroupSummary | undefined {
    for (const level of GROUP_LEVELS) {
      if (level === "exe") continue;
      const key = keys[level];
      const g = key === undefined ? undefined : this.#groups.get(key);
      if (g && g.count >= minJobs) {
        return { level, jobs: g.count, censoredJobs: g.censoredCount, since: g.firstEnd };
      }
    }
    return undefined;
  }
}
