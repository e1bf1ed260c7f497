import { killedForMemory } from "@jobsight/schemas";
import type pg from "pg";
import { query } from "../storage/database.js";

/** An ended job the memory limit killed: its shape and what says it was the memory. */
export type OomKilledJob = {
  cluster: string;
  jobId: string;
  user: string;
  endedAt: string;
  /** The scheduler's final state, e.g. OUT_OF_MEMORY, or FAILED with signal 9. */
  state: string;
  signal?: number;
  peakMemoryBytes?: number;
  requestedMemoryBytes?: number;
  requestedCores?: number;
  requestedGpus?: number;
  jobName?: string;
  scriptHash?: string;
};

/** Options of {@link oomKilledJobs}. */
export type OomHistoryOptions = {
  /** Jobs that ended at or after this time. */
  since: Date;
  /** Only these users' jobs. */
  users: readonly string[];
  /** Most jobs read, newest first. @default 5000 */
  limit?: number;
};

// Candidates: OUT_OF_MEMORY, or killed by signal 9 (SLURM without the cgroup task plugin reports
// a kill for memory so); the latter are kept only when the peak passed the limit (killedForMemory).
const OOM = `SELECT cluster, job_id, user_name, ended_at, state, requested_memory_bytes, requested_cores,
  requested_gpus, peak_memory_bytes, record->'spec'->>'jobName' AS job_name,
  record->'spec'->>'scriptHash' AS script_hash, record->'outcome'->>'signal' AS signal,
  record->'allocated'->>'memoryBytes' AS allocated_memory_bytes
FROM jobs
WHERE phase = 'ended' AND ended_at >= $1 AND user_name = ANY($2::text[])
  AND (state = 'OUT_OF_MEMORY' OR record->'outcome'->>'signal' = '9')
ORDER BY ended_at DESC, cluster, job_id
LIMIT $3`;

type Row = {
  cluster: string;
  job_id: string;
  user_name: string;
  ended_at: Date;
  state: string | null;
  requested_memory_bytes: string | null;
  requested_cores: number | null;
  requested_gpus: number | null;
  peak_memory_bytes: string | null;
  job_name: string | null;
  script_hash: string | null;
  signal: string | null;
  allocated_memory_bytes: string | null;
};

const num = (v: string | number | null) => (v === null ? undefined : Number(v));

/**
 * The recent jobs of `users` that the memory limit killed, newest first: the history the
 * repeated-oom rule and the hold of a repeat offender's submission judge by. Parameterised and
 * bounded.
 *
 * @example
 * ```ts
 * const killed = await oomKilledJobs(pool, { since: new Date(Date.now() - 7 * 86_400_000), users: ["alice"] });
 * ```
 */
export async function oomKilledJobs(pool: pg.Pool, options: OomHistoryOptions): Promise<OomKilledJob[]> {
  if (options.users.length === 0) return [];
  const { rows } = await query<Row>(pool, OOM, [options.since, options.users, options.limit ?? 5000]);
  const killed: OomKilledJob[] = [];
  for (const r of rows) {
    const signal = num(r.signal);
    const peak = num(r.peak_memory_bytes);
    const limit = num(r.allocated_memory_bytes) ?? num(r.requested_memory_bytes);
    if (r.state !== "OUT_OF_MEMORY" && !killedForMemory(signal, peak, limit)) continue;
    const job: OomKilledJob = {
      cluster: r.cluster,
      jobId: r.job_id,
      user: r.user_name,
      endedAt: r.ended_at.toISOString(),
      state: r.state ?? "FAILED",
    };
    if (signal !== undefined) job.signal = signal;
    if (peak !== undefined) job.peakMemoryBytes = peak;
    if (r.requested_memory_bytes !== null) job.requestedMemoryBytes = Number(r.requested_memory_bytes);
    if (r.requested_cores !== null) job.requestedCores = r.requested_cores;
    if (r.requested_gpus !== null) job.requestedGpus = r.requested_gpus;
    if (r.job_name !== null) job.jobName = r.job_name;
    if (r.script_hash !== null) job.scriptHash = r.script_hash;
    killed.push(job);
  }
  return killed;
}
