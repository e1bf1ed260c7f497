import type { HistoryJob } from "../history-job.js";
import { MinHeap } from "../stats/min-heap.js";

/**
 * Replays jobs in submit order, releasing each job to `onEnded` only once the clock has passed its
 * end time, strictly before the next submission is handled. This is the single place that decides
 * what "already ended" means, for features and baselines alike.
 *
 * @example
 * ```ts
 * replayInSubmitOrder(jobs, (job) => history.add(job), (job, i) => predict(job, i));
 * ```
 */
export function replayInSubmitOrder(
  jobs: readonly HistoryJob[],
  onEnded: (job: HistoryJob, index: number) => void,
  onSubmitted: (job: HistoryJob, index: number) => void,
): void {
  const pending = new MinHeap<number>();
  for (let i = 0; i < jobs.length; i++) {
    const job = jobs[i];
    if (i > 0 && job.submitTime < jobs[i - 1].submitTime) {
      throw new JobOrderError(i, job.submitTime, jobs[i - 1].submitTime);
    }
    while (pending.size > 0 && pending.peekKey() < job.submitTime) {
      const k = pending.pop() as number;
      onEnded(jobs[k], k);
    }
    onSubmitted(job, i);
    pending.push(job.endTime, i);
  }
}

/** Jobs handed to the replay were not sorted by submit time. */
export class JobOrderError extends Error {
  readonly code = "JOBS_NOT_SORTED";
  constructor(index: number, submit: number, previous: number) {
    super(
      `job ${index} was submitted at ${submit}, before the previous job (${previous}); sort by submit time`,
    );
    this.name = "JobOrderError";
  }
}
