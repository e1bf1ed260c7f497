import { query, type SqlPool } from "../storage/database.js";

/** Which past jobs count as the same work: the same executable, or else the same job name. */
export type SameWorkKey = { by: "executable" | "jobName"; value: string };

/** The job whose history is asked for; it is never part of the answer. */
export type RunTimeQuery = {
  cluster: string;
  user: string;
  jobId: string;
  /** RFC 3339; only jobs submitted before it count. */
  submittedAt: string;
  key: SameWorkKey;
  limit: number;
};

// Two fixed statements rather than one with a spliced column: the filter is on one or the other.
const RUN_TIMES_BY_EXECUTABLE = `SELECT run_time_seconds AS run FROM jobs
     WHERE cluster = $1 AND user_name = $2 AND phase = 'ended' AND state = 'COMPLETED' AND job_id <> $3
       AND run_time_seconds IS NOT NULL AND submitted_at < $4::timestamptz AND executable = $5
     ORDER BY submitted_at DESC LIMIT $6`;
const RUN_TIMES_BY_JOB_NAME = `SELECT run_time_seconds AS run FROM jobs
     WHERE cluster = $1 AND user_name = $2 AND phase = 'ended' AND state = 'COMPLETED' AND job_id <> $3
       AND run_time_seconds IS NOT NULL AND submitted_at < $4::timestamptz AND record->'spec'->>'jobName' = $5
     ORDER BY submitted_at DESC LIMIT $6`;

/**
 * Run times (seconds, newest first) of the user's completed jobs of the same work submitted before
 * the given one: what a timeout diagnosis compares the job with.
 *
 * @example
 * ```ts
 * const runs = await completedRunTimes(pool, { cluster, user, jobId, submittedAt, key: { by: "executable", value: "train.py" }, limit: 20 });
 * ```
 */
export async function completedRunTimes(pool: SqlPool, q: RunTimeQuery): Promise<number[]> {
  const sql = q.key.by === "executable" ? RUN_TIMES_BY_EXECUTABLE : RUN_TIMES_BY_JOB_NAME;
  const { rows } = await query<{ run: number }>(pool, sql, [
    q.cluster,
    q.user,
    q.jobId,
    q.submittedAt,
    q.key.value,
    q.limit,
  ]);
  return rows.map((r) => Number(r.run));
}

/** An artifact linked to a job, as a diagnosis reads it. */
export type JobArtifactRef = { sha256: string; kind: "script" | "manifest" | "log"; sizeBytes: number };

/**
 * The scripts, manifests and logs linked to a job, oldest first.
 *
 * @example
 * ```ts
 * const refs = await jobArtifactRefs(pool, "hpc1", "4242");
 * ```
 */
export async function jobArtifactRefs(
  pool: SqlPool,
  cluster: string,
  jobId: string,
): Promise<JobArtifactRef[]> {
  const { rows } = await query<{ sha256: string; kind: JobArtifactRef["kind"]; size: string }>(
    pool,
    `SELECT l.sha256, l.kind, a.size_bytes AS size FROM artifact_links l JOIN artifacts a USING (sha256)
     WHERE l.cluster = $1 AND l.job_id = $2 AND l.kind IN ('script', 'manifest', 'log')
     ORDER BY a.created_at, l.sha256`,
    [cluster, jobId],
  );
  return rows.map((r) => ({ sha256: r.sha256, kind: r.kind, sizeBytes: Number(r.size) }));
}
