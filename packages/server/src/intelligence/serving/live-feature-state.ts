import type { ResourceName } from "@jobsight/schemas";
import { FeatureBuilder, type GroupSummary } from "../features/feature-builder.js";
import { FEATURE_NAMES, groupFeatureIndex } from "../features/group-features.js";
import { type GroupKeys, groupKeys } from "../features/group-keys.js";
import { type MemoryKill, RecentMemoryKills } from "../features/recent-memory-kills.js";
import type { HistoryJob } from "../history-job.js";
import { ALL_RESOURCES, resourceSpec } from "../resources.js";

/**
 * The history a prediction's features are computed from, kept up to date while the server runs:
 * one {@link FeatureBuilder} per resource (the very code training replays), fed with ended jobs
 * in end order. A job about to be submitted gets the same row
 * the model was trained on: at training time the replay computes exactly this state at each
 * job's submission.
 *
 * @example
 * ```ts
 * const state = new LiveFeatureState();
 * for (const job of endedInEndOrder) state.observeEnded(job);
 * const row = state.features("memory", specToHistoryJob(spec, Date.now() / 1000));
 * ```
 */
export class LiveFeatureState {
  readonly #builders = new Map<ResourceName, FeatureBuilder>();
  readonly #seen = new Set<string>();
  readonly #userCount = groupFeatureIndex("user", "count");
  /** The last memory kill of each application, until a run of it completes. */
  readonly kills = new RecentMemoryKills();
  /** Ended jobs observed. */
  jobs = 0;

  constructor() {
    for (const name of ALL_RESOURCES) this.#builders.set(name, new FeatureBuilder(resourceSpec(name)));
  }

  /** Number of features of a row. */
  get width(): number {
    return FEATURE_NAMES.length;
  }

  /**
   * Adds an ended job (call in end order); a job already observed (by `id`) is ignored, so a feed
   * that reads overlapping windows never counts a job twice. Returns whether it was new.
   */
  observeEnded(job: HistoryJob): boolean {
    if (this.#seen.has(job.id)) return false;
    this.#seen.add(job.id);
    this.jobs++;
    if (job.endTime > this.newestEnd) this.newestEnd = job.endTime;
    // One set of group keys for every resource's builder and the kills, not one each.
    const keys = groupKeys(job);
    for (const b of this.#builders.values()) b.observeEnded(job, keys);
    this.kills.observeEnded(job, appKey(job, keys));
    return true;
  }

  /** End time (unix s) of the latest-ending job observed; -Infinity before any. */
  newestEnd = Number.NEGATIVE_INFINITY;

  /** Whether an ended job (by the `id` it was observed with) is in the state already. */
  has(id: string): boolean {
    return this.#seen.has(id);
  }

  /**
   * Writes the feature row of `job` for one resource into `out` (at `offset`); `keys` (the job's
   * `groupKeys`) spare recomputing them for every resource of one job.
   */
  features(
    resource: ResourceName,
    job: HistoryJob,
    out: Float32Array = new Float32Array(FEATURE_NAMES.length),
    offset = 0,
    keys?: GroupKeys,
  ): Float32Array {
    const row = out.subarray(offset, offset + FEATURE_NAMES.length);
    this.#builder(resource).features(job, row, keys);
    return out;
  }

  /** Completed jobs of the job's user with a measured `resource`, read from a feature row. */
  userJobs(row: ArrayLike<number>, offset = 0): number {
    return Math.round(Math.expm1(row[offset + this.#userCount]));
  }

  /** The most specific group with at least `minJobs` exact values, for evidence. */
  summary(resource: ResourceName, job: HistoryJob, minJobs = 3, keys?: GroupKeys): GroupSummary | undefined {
    return this.#builder(resource).summary(job, minJobs, keys);
  }

  /** The recent memory kill of the job's application (same user and executable), if any. */
  recentMemoryKill(job: HistoryJob, keys?: GroupKeys): MemoryKill | undefined {
    return this.kills.recent(appKey(job, keys), job.submitTime);
  }

  #builder(resource: ResourceName): FeatureBuilder {
    return this.#builders.get(resource) as FeatureBuilder;
  }
}

/** The application a job belongs to, or undefined when it names no executable (nor job name). */
function appKey(job: HistoryJob, keys?: GroupKeys): string | undefined {
  return job.executable === undefined ? undefined : (keys ?? groupKeys(job)).app;
}
