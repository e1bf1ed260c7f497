import type pg from "pg";
import type { HeartbeatSource } from "../../platform/licence/heartbeat.js";
import { reportingNodes } from "../queries/deployment-counts.js";

/** Options of {@link storageHeartbeatCounts}. */
export type StorageHeartbeatCountsOptions = {
  /**
   * Predictions recorded in the last 24 hours (the intelligence plane's own count).
   * @default () => 0
   */
  predictionsPerDay?: () => Promise<number>;
  /**
   * The clock.
   * @default () => new Date()
   */
  now?: () => Date;
};

const DAY_MS = 86_400_000;

/**
 * The heartbeat's counts from the data plane's tables: nodes that reported samples in the last
 * 24 hours, registered clusters, jobs submitted in the last 24 hours. Every query is an aggregate
 * returning one number; no row of job data is ever read.
 *
 * @example
 * ```ts
 * const source: HeartbeatSource = { ..., counts: storageHeartbeatCounts(storage.pool) };
 * ```
 */
export function storageHeartbeatCounts(
  pool: pg.Pool,
  options: StorageHeartbeatCountsOptions = {},
): HeartbeatSource["counts"] {
  const count = async (sql: string, params: unknown[] = []): Promise<number> => {
    const { rows } = await pool.query<{ n: string | number }>(sql, params);
    return Number(rows[0]?.n ?? 0);
  };
  return async () => {
    const since = new Date((options.now ?? (() => new Date()))().getTime() - DAY_MS);
    const [nodes, clusters, jobsPerDay, predictionsPerDay] = await Promise.all([
      reportingNodes(pool, since),
      count("SELECT count(*) AS n FROM clusters"),
      count("SELECT count(*) AS n FROM jobs WHERE submitted_at >= $1", [since]),
      options.predictionsPerDay ? options.predictionsPerDay() : Promise.resolve(0),
    ]);
    return { nodes, clusters, jobsPerDay, predictionsPerDay };
  };
}
