const SIGKILL = 9;

/**
 * Whether a kill by signal 9 was the memory limit: without the cgroup task plugin SLURM enforces
 * `--mem` by polling and reports such a kill as FAILED or CANCELLED with signal 9 and a MaxRSS
 * above the limit, never OUT_OF_MEMORY (sites with cgroups do say OUT_OF_MEMORY). The collector,
 * the sacct import and the learner all judge a job by this one rule, so a job reads the same
 * whichever way it arrived.
 *
 * @param signal the signal that ended the job or step
 * @param peakBytes its measured peak (MaxRSS, or the cgroup's memory.peak)
 * @param limitBytes its memory limit (allocated, else requested)
 * @example
 * ```ts
 * killedForMemory(9, 3 * 2 ** 30, 2 * 2 ** 30); // true
 * killedForMemory(9, 1 * 2 ** 30, 2 * 2 ** 30); // false: cancelled, not over its memory
 * ```
 */
export function killedForMemory(
  signal: number | undefined,
  peakBytes: number | undefined,
  limitBytes: number | undefined,
): boolean {
  return (
    signal === SIGKILL &&
    peakBytes !== undefined &&
    limitBytes !== undefined &&
    limitBytes > 0 &&
    peakBytes > limitBytes
  );
}
