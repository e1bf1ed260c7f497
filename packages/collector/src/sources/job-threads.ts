import type { JobProcesses } from "./proc-job-attribution.js";
import type { ProcReader } from "./proc-reader.js";

/** A job's threads at one instant. */
export type JobThreads = {
  /** Threads of the job's processes: `num_threads` (field 20 of `/proc/<pid>/stat`), summed. */
  threads: number;
  /**
   * Threads in state R (running, or runnable and waiting for a core). Undefined when the job has
   * more multi-threaded threads than the read budget: a partial count would understate the queue.
   */
  runnableThreads?: number;
};

/** Thread `stat` files read per job per round at most (a few milliseconds of reads). */
export const MAX_THREAD_READS = 8192;

/**
 * Count a job's threads and how many of them are runnable. A single-threaded process's state is
 * its `stat`'s (already read by the scan); a multi-threaded one's threads are read one by one from
 * `/proc/<pid>/task/<tid>/stat`, as proc(5) gives each thread its own state. More runnable threads
 * than the job's cores means threads queue for a core.
 *
 * @example
 * ```ts
 * const { threads, runnableThreads } = countJobThreads(byJob.get("4242")!, proc);
 * ```
 */
export function countJobThreads(
  job: JobProcesses,
  proc: ProcReader,
  maxReads = MAX_THREAD_READS,
): JobThreads {
  let threads = 0;
  let reads = 0;
  const ps = job.processes;
  for (let i = 0; i < ps.length; i++) {
    const n = Math.max(1, ps[i].numThreads);
    threads += n;
    if (n > 1) reads += n;
  }
  if (reads > maxReads) return { threads };
  let runnable = 0;
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i];
    if (p.numThreads <= 1) {
      if (p.state === "R") runnable++;
      continue;
    }
    // A process gone since the scan has no runnable thread left.
    runnable += proc.runnableThreads(p.pid) ?? 0;
  }
  return { threads, runnableThreads: runnable };
}
