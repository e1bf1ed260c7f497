import { query, type SqlPool } from "../storage/database.js";

/** One job's time on one node, as its record tells it. */
export type NodeOccupancy = {
  jobId: string;
  user: string;
  node: string;
  /** The job's scheduler (`slurm`, `kubernetes`), from its spec. */
  scheduler: string;
  /** Unix milliseconds. */
  startedMs: number;
  /** Unix milliseconds; `null` while it runs. */
  endedMs: number | null;
};

type Row = {
  job_id: string;
  user_name: string;
  node: string;
  scheduler: string | null;
  started_ms: number;
  ended_ms: number | null;
};

/**
 * The jobs of `cluster` whose record places them on any of `nodes` and that ran at some time in
 * `[fromMs, toMs]` (started by `toMs`, not ended by `fromMs`), one row per job and node. Jobs never
 * started, or whose record names no nodes, are not returned. Uses `jobs_by_node` (GIN on the
 * record's node list) and `jobs_by_cluster_end`.
 *
 * @example
 * ```ts
 * const on = await jobsOnNodes(pool, "hpc1", ["cn001"], Date.parse("2026-12-01T10:00:00Z"), Date.now());
 * ```
 */
export async function jobsOnNodes(
  pool: SqlPool,
  cluster: string,
  nodes: readonly string[],
  fromMs: number,
  toMs: number,
): Promise<NodeOccupancy[]> {
  if (nodes.length === 0) return [];
  const { rows } = await query<Row>(
    pool,
    `SELECT j.job_id, j.user_name, n.node, j.record -> 'spec' ->> 'scheduler' AS scheduler,
       (extract(epoch FROM j.started_at) * 1000)::float8 AS started_ms,
       (extract(epoch FROM j.ended_at) * 1000)::float8 AS ended_ms
     FROM jobs j CROSS JOIN LATERAL jsonb_array_elements_text(
       CASE WHEN jsonb_typeof(j.record -> 'nodes') = 'array' THEN j.record -> 'nodes' ELSE '[]'::jsonb END
     ) AS n(node)
     WHERE j.cluster = $1 AND j.record -> 'nodes' ?| $2::text[] AND n.node = ANY($2::text[])
       AND j.started_at IS NOT NULL AND j.started_at <= to_timestamp($4::float8 / 1000)
       AND (j.ended_at IS NULL OR j.ended_at > to_timestamp($3::float8 / 1000))`,
    [cluster, [...nodes], fromMs, toMs],
  );
  return rows.map((r) => ({
    jobId: r.job_id,
    user: r.user_name,
    node: r.node,
    scheduler: r.scheduler ?? "",
    startedMs: r.started_ms,
    endedMs: r.ended_ms,
  }));
}
