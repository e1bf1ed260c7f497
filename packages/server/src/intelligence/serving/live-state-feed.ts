import type { SqlPool } from "../../data-plane/storage/database.js";
import {
  endedJobsPage,
  endedJobsUpdatedSince,
  newestEndedUpdate,
} from "../../data-plane/stores/stored-jobs.js";
import type { HistoryJob } from "../history-job.js";
import { storedJobToHistoryJob } from "../recording/record-to-history.js";
import { LiveFeatureState } from "./live-feature-state.js";

/** Options of {@link LiveStateFeed}. */
export type LiveStateFeedOptions = {
  /** Jobs read per query. @default 5000 */
  pageSize?: number;
  /** More changed ended jobs than this since the last read (a large import): rebuild from scratch. @default 50000 */
  rebuildThreshold?: number;
  /** Re-read this many seconds before the last change seen (late commits). @default 60 */
  lagSeconds?: number;
};

/**
 * Keeps a {@link LiveFeatureState} in step with the data plane: a full read of the ended jobs in
 * end order at start, then on every refresh the ended jobs changed since (deduplicated). A large change (an import) rebuilds the state aside and swaps it in,
 * so predictions never see a half-built history.
 *
 * @example
 * ```ts
 * const feed = new LiveStateFeed(pool);
 * await feed.rebuild();
 * await feed.refresh(); // every few seconds
 * feed.state.features("memory", job);
 * ```
 */
export class LiveStateFeed {
  state = new LiveFeatureState();
  #cursor: string | undefined;
  readonly #pageSize: number;
  readonly #rebuildThreshold: number;
  readonly #lag: number;

  constructor(
    private readonly pool: SqlPool,
    options: LiveStateFeedOptions = {},
  ) {
    this.#pageSize = options.pageSize ?? 5000;
    this.#rebuildThreshold = options.rebuildThreshold ?? 50_000;
    this.#lag = options.lagSeconds ?? 60;
  }

  /** Reads every ended job into a new state, then swaps it in. */
  async rebuild(): Promise<void> {
    const state = new LiveFeatureState();
    // The cursor first: a job changed while the read goes on comes again with the next refresh.
    const cursor = await newestEndedUpdate(this.pool);
    let page = await endedJobsPage(this.pool, "ended", undefined, this.#pageSize);
    for (;;) {
      for (const job of page.jobs) state.observeEnded(storedJobToHistoryJob(job));
      if (!page.next) break;
      page = await endedJobsPage(this.pool, "ended", page.next, this.#pageSize);
    }
    this.state = state;
    this.#cursor = cursor;
  }

  /** Adds the ended jobs changed since the last read. */
  async refresh(): Promise<void> {
    if (this.#cursor === undefined) {
      await this.rebuild();
      return;
    }
    const changed = await endedJobsUpdatedSince(
      this.pool,
      this.#cursor,
      this.#lag,
      this.#rebuildThreshold,
      // The state ignores a job it has observed: such rows are not worth reading again.
      (cluster, jobId) => this.state.has(`${cluster}/${jobId}`),
    );
    if (changed.changed >= this.#rebuildThreshold) {
      await this.rebuild();
      return;
    }
    const jobs: HistoryJob[] = changed.jobs.map(storedJobToHistoryJob).sort((a, b) => a.endTime - b.endTime);
    // Features depend on the order jobs ended in, as training replays them. Jobs that ended well
    // before ones already observed (an import of older history) would be added out of that order,
    // and the advice would depend on when a refresh happened to run: rebuild in end order instead.
    const late = this.state.newestEnd - this.#lag;
    if (jobs.some((j) => j.endTime < late && !this.state.has(j.id))) {
      await this.rebuild();
      return;
    }
    for (const job of jobs) this.state.observeEnded(job);
    if (changed.newest) this.#cursor = changed.newest;
  }
}
