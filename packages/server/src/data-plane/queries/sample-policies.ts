import type { StorageFlavour } from "../storage/migration-files.js";
import type { SqlSession } from "../storage/sql-session.js";
import type { SamplePartitions } from "./sample-partitions.js";

/** Retention and compression of samples. */
export type SamplePolicyOptions = {
  /** Drop samples older than this many days; 0 keeps them. @default 90 */
  retentionDays: number;
  /** TimescaleDB: compress chunks older than this many days. @default 7 */
  compressAfterDays: number;
};

/**
 * Applies the configured policies. TimescaleDB: compression and retention policies run by its
 * own scheduler (replaced, so a changed configuration takes effect). Plain PostgreSQL: old daily
 * partitions are dropped now; call again periodically.
 *
 * @example
 * ```ts
 * await applySamplePolicies(pool, "plain", partitions, { retentionDays: 90, compressAfterDays: 7 });
 * ```
 */
export async function applySamplePolicies(
  pool: SqlSession,
  flavour: StorageFlavour,
  partitions: SamplePartitions,
  options: SamplePolicyOptions,
): Promise<void> {
  if (flavour === "plain") {
    await partitions.dropOlderThan(options.retentionDays);
    return;
  }
  await pool.query("SELECT remove_compression_policy('usage_samples', if_exists => TRUE)");
  await pool.query("SELECT add_compression_policy('usage_samples', make_interval(days => $1::int))", [
    options.compressAfterDays,
  ]);
  await pool.query("SELECT remove_retention_policy('usage_samples', if_exists => TRUE)");
  if (options.retentionDays > 0) {
    await pool.query("SELECT add_retention_policy('usage_samples', make_interval(days => $1::int))", [
      options.retentionDays,
    ]);
  }
}
