import { query, type SqlPool } from "../storage/database.js";

/** A user as the recorded jobs show them. */
export type JobUser = {
  user: string;
  /** Clusters of the user's jobs, sorted. */
  clusters: string[];
  jobs: number;
  /** Latest submission, ISO 8601 UTC. */
  lastSubmittedAt: string;
};

/**
 * Every user with recorded jobs (on `cluster`, or on every cluster), by name: their clusters,
 * how many jobs and when they last submitted one. One pass over the jobs table: an operator's
 * question, not one asked per request.
 *
 * @example
 * ```ts
 * const users = await jobUsers(pool, "hpc1"); // [{ user: "alice", clusters: ["hpc1"], jobs: 412, … }]
 * ```
 */
export async function jobUsers(pool: SqlPool, cluster?: string): Promise<JobUser[]> {
  const { rows } = await query<{ user: string; clusters: string[]; jobs: string; last: string }>(
    pool,
    `SELECT user_name AS "user", array_agg(DISTINCT cluster ORDER BY cluster) AS clusters, count(*) AS jobs,
       to_char(max(submitted_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS last
     FROM jobs WHERE ($1::text IS NULL OR cluster = $1) GROUP BY user_name ORDER BY user_name`,
    [cluster ?? null],
  );
  return rows.map((r) => ({
    user: r.user,
    clusters: r.clusters,
    jobs: Number(r.jobs),
    lastSubmittedAt: r.last,
  }));
}
