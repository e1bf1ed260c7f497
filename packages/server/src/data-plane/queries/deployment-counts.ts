import type { SqlPool } from "../storage/database.js";

const DAY_MS = 86_400_000;

/**
 * Nodes that sent samples since `since` (default: the last 24 hours): what the licence's node
 * limit and the heartbeat count. An aggregate; no row of job data is read.
 *
 * @example
 * ```ts
 * const nodes = await reportingNodes(pool);
 * ```
 */
export async function reportingNodes(pool: SqlPool, since = new Date(Date.now() - DAY_MS)): Promise<number> {
  const { rows } = await pool.query<{ n: string | number }>(
    "SELECT count(DISTINCT node) AS n FROM usage_samples WHERE time >= $1",
    [since],
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * Predictions recorded in the last 24 hours; 0 on a data-plane-only database without the
 * intelligence plane's table.
 *
 * @example
 * ```ts
 * const perDay = await predictionsPerDay(pool);
 * ```
 */
export async function predictionsPerDay(pool: SqlPool): Promise<number> {
  const { rows } = await pool.query<{ n: string | null }>(
    "SELECT CASE WHEN to_regclass('predictions') IS NULL THEN 0 ELSE (SELECT count(*) FROM predictions WHERE created_at >= now() - interval '1 day') END AS n",
  );
  return Number(rows[0]?.n ?? 0);
}
