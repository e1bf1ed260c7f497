import { num, str } from "./slurm-json.js";

/**
 * A job's `--output`/`--error` patterns (unexpanded, as given to sbatch) and its working directory,
 * as slurmctld knows them while the job is queued or running.
 */
export type OutputPatterns = { stdout?: string; stderr?: string; workDir?: string };

// PATH_MAX: anything longer names no file the controller could open.
const MAX_PATH = 4096;

const path = (v: unknown): string | undefined => {
  const s = str(v);
  return s && s.length <= MAX_PATH ? s : undefined;
};

/**
 * The output patterns of one job of `squeue --json` (`standard_output`, `standard_error`,
 * `current_working_directory`; 22.05 prints `""` for an unset `--error`), or undefined when it
 * names none.
 *
 * @example
 * ```ts
 * outputPatternsOf({ standard_output: "%x-%j.out", standard_error: "", current_working_directory: "/home/ana" });
 * // { stdout: "%x-%j.out", workDir: "/home/ana" }
 * ```
 */
export function outputPatternsOf(squeueJob: Record<string, unknown>): OutputPatterns | undefined {
  const stdout = path(squeueJob.standard_output);
  const stderr = path(squeueJob.standard_error);
  const workDir = path(squeueJob.current_working_directory);
  if (!stdout && !stderr) return undefined;
  return { ...(stdout ? { stdout } : {}), ...(stderr ? { stderr } : {}), ...(workDir ? { workDir } : {}) };
}

/**
 * The output patterns of the jobs squeue listed, kept until their end is handled: SLURM 22.05's
 * sacct records no output path, so after the end they are the only record of where stderr went.
 * Holds at most `limit` jobs, forgetting the longest-known first.
 *
 * @example
 * ```ts
 * const patterns = new OutputPatternMemory();
 * for (const job of squeue.jobs) patterns.remember(job);
 * const known = patterns.ofSacctJob(sacct.jobs[0]); // after its end is handled:
 * patterns.forget("4242");
 * ```
 */
export class OutputPatternMemory {
  private readonly byJob = new Map<string, OutputPatterns>();

  constructor(private readonly limit = 50_000) {}

  /** Keep the patterns of one job of `squeue --json` (and of its array, for tasks not yet listed). */
  remember(squeueJob: Record<string, unknown>): void {
    const id = num(squeueJob.job_id);
    const patterns = outputPatternsOf(squeueJob);
    if (id === undefined || !patterns) return;
    this.set(String(id), patterns);
    const arrayJob = num(squeueJob.array_job_id);
    if (arrayJob && arrayJob !== id && !this.byJob.has(String(arrayJob)))
      this.set(String(arrayJob), patterns);
  }

  /** The patterns of a job of `sacct --json`, else those of its array job. */
  ofSacctJob(sacctJob: Record<string, unknown>): OutputPatterns | undefined {
    const id = num(sacctJob.job_id);
    const array = sacctJob.array as { job_id?: unknown } | undefined;
    const arrayJob = num(array?.job_id);
    return (
      (id !== undefined ? this.byJob.get(String(id)) : undefined) ??
      (arrayJob ? this.byJob.get(String(arrayJob)) : undefined)
    );
  }

  forget(jobId: string): void {
    this.byJob.delete(jobId);
  }

  get size(): number {
    return this.byJob.size;
  }

  private set(jobId: string, patterns: OutputPatterns): void {
    this.byJob.set(jobId, patterns);
    if (this.byJob.size > this.limit) {
      const oldest = this.byJob.keys().next().value;
      if (oldest !== undefined) this.byJob.delete(oldest);
    }
  }
}
