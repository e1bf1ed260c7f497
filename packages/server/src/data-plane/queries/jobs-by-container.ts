import { query, type SqlPool } from "../storage/database.js";

/** A job whose record lists a container, as its record tells it. */
export type ContainerJob = {
  jobId: string;
  user: string;
  /** The container id the record lists (lower-case hex, without a runtime prefix). */
  containerId: string;
  /** The nodes the record places the job on (a pod's one node; empty before it is scheduled). */
  nodes: string[];
};

type Row = { job_id: string; user_name: string; container_id: string; nodes: unknown };

/**
 * The jobs of `cluster` whose record lists any of `containerIds` (`JobRecord.containerIds`, which
 * Jobsight's Kubernetes collector writes from a pod's container statuses), one row per job and
 * listed container asked for. A container two records list gives two rows: the caller decides.
 * Uses `jobs_by_container` (GIN on the record's container list).
 *
 * @example
 * ```ts
 * const jobs = await jobsByContainer(pool, "k8s1", ["9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"]);
 * ```
 */
export async function jobsByContainer(
  pool: SqlPool,
  cluster: string,
  containerIds: readonly string[],
): Promise<ContainerJob[]> {
  if (containerIds.length === 0) return [];
  const { rows } = await query<Row>(
    pool,
    `SELECT j.job_id, j.user_name, c.id AS container_id, j.record -> 'nodes' AS nodes
     FROM jobs j CROSS JOIN LATERAL jsonb_array_elements_text(
       CASE WHEN jsonb_typeof(j.record -> 'containerIds') = 'array' THEN j.record -> 'containerIds' ELSE '[]'::jsonb END
     ) AS c(id)
     WHERE j.cluster = $1 AND j.record -> 'containerIds' ?| $2::text[] AND c.id = ANY($2::text[])`,
    [cluster, [...containerIds]],
  );
  return rows.map((r) => ({
    jobId: r.job_id,
    user: r.user_name,
    containerId: r.container_id,
    nodes: Array.isArray(r.nodes) ? r.nodes.filter((n): n is string => typeof n === "string") : [],
  }));
}
