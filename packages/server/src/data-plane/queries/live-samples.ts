import type { UsageSample } from "@jobsight/schemas";
import type pg from "pg";
import { query } from "../storage/database.js";

/** A job with recent samples and no sign of having ended, with its samples in time order. */
export type LiveJob = {
  cluster: string;
  jobId: string;
  /** The job record's user, or the samples' when there is no record yet. */
  user?: string;
  requestedCores?: number;
  requestedGpus?: number;
  /** The job's shape, from its record: what repeated-oom compares with the user's past kills. */
  requestedMemoryBytes?: number;
  jobName?: string;
  scriptHash?: string;
  /** When the job started and its walltime, from its record: what walltime-overrun projects against. */
  startedAt?: string;
  walltimeSeconds?: number;
  /** The samples in time order (node and step within an instant), without their process lists. */
  samples: UsageSample[];
};

/** Options of {@link liveJobs}. */
export type LiveJobsOptions = {
  /** Samples from this time on. */
  since: Date;
  /** Samples until this time (inclusive). */
  until: Date;
  /** Only jobs whose last sample is at or after this time (older ones have stopped reporting). */
  reportingSince: Date;
  /** Most jobs read, most recently reporting first. @default 2000 */
  maxJobs?: number;
  /** Most samples read over all jobs. @default 250000 */
  maxSamples?: number;
};

/** What {@link liveJobs} found; `truncated` when a bound cut the answer short. */
export type LiveJobs = { jobs: LiveJob[]; truncated: boolean };

// Running: reported recently, no final (epilog) reading, and no ended record. Bounded twice: by
// jobs (most recently reporting first), then by samples.
const LIVE = `
WITH live AS (
  SELECT cluster, job_id, max(time) AS last_time,
    bool_or(coalesce(sample->>'final', 'false') = 'true') AS finished,
    max(sample->>'user') AS sample_user
  FROM usage_samples WHERE time >= $1 AND time <= $2
  GROUP BY cluster, job_id
), running AS (
  SELECT l.cluster, l.job_id, coalesce(j.user_name, l.sample_user) AS user_name,
    j.requested_cores, j.requested_gpus, j.requested_memory_bytes, j.requested_walltime_seconds, j.started_at,
    j.record->'spec'->>'jobName' AS job_name, j.record->'spec'->>'scriptHash' AS script_hash, l.last_time
  FROM live l LEFT JOIN jobs j ON j.cluster = l.cluster AND j.job_id = l.job_id
  WHERE NOT l.finished AND l.last_time >= $3 AND (j.phase IS NULL OR j.phase <> 'ended')
  ORDER BY l.last_time DESC, l.cluster, l.job_id
  LIMIT $4
)
SELECT r.cluster, r.job_id, r.user_name, r.requested_cores, r.requested_gpus, r.requested_memory_bytes,
  r.requested_walltime_seconds, r.started_at, r.job_name, r.script_hash, s.sample - 'processes' AS sample
FROM running r
JOIN usage_samples s ON s.cluster = r.cluster AND s.job_id = r.job_id AND s.time >= $1 AND s.time <= $2
ORDER BY r.cluster, r.job_id, s.time, s.node, s.step
LIMIT $5`;

type Row = {
  cluster: string;
  job_id: string;
  user_name: string | null;
  requested_cores: number | null;
  requested_gpus: number | null;
  requested_memory_bytes: string | null;
  requested_walltime_seconds: string | null;
  started_at: Date | null;
  job_name: string | null;
  script_hash: string | null;
  sample: UsageSample;
};

/**
 * The recent samples of the jobs still running: the input of the live alert rules. Parameterised,
 * bounded by jobs and by samples; a job cut short by the samples' bound is left out whole (its
 * series would end early), and the answer says it was truncated.
 *
 * @example
 * ```ts
 * const now = new Date();
 * const { jobs } = await liveJobs(pool, { since: new Date(+now - 3_600_000), until: now, reportingSince: new Date(+now - 600_000) });
 * ```
 */
export async function liveJobs(pool: pg.Pool, options: LiveJobsOptions): Promise<LiveJobs> {
  const maxSamples = options.maxSamples ?? 250_000;
  const maxJobs = options.maxJobs ?? 2000;
  const { rows } = await query<Row>(pool, LIVE, [
    options.since,
    options.until,
    options.reportingSince,
    maxJobs,
    maxSamples,
  ]);
  const jobs: LiveJob[] = [];
  let current: LiveJob | undefined;
  for (const r of rows) {
    if (!current || current.cluster !== r.cluster || current.jobId !== r.job_id) {
      current = { cluster: r.cluster, jobId: r.job_id, samples: [] };
      if (r.user_name !== null) current.user = r.user_name;
      if (r.requested_cores !== null) current.requestedCores = r.requested_cores;
      if (r.requested_gpus !== null) current.requestedGpus = r.requested_gpus;
      if (r.requested_memory_bytes !== null) current.requestedMemoryBytes = Number(r.requested_memory_bytes);
      if (r.requested_walltime_seconds !== null)
        current.walltimeSeconds = Number(r.requested_walltime_seconds);
      if (r.started_at !== null) current.startedAt = r.started_at.toISOString();
      if (r.job_name !== null) current.jobName = r.job_name;
      if (r.script_hash !== null) current.scriptHash = r.script_hash;
      jobs.push(current);
    }
    current.samples.push(r.sample);
  }
  const cutBySamples = rows.length >= maxSamples;
  if (cutBySamples) jobs.pop();
  return { jobs, truncated: cutBySamples || jobs.length >= maxJobs };
}
