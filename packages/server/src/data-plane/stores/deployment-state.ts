import { query, type SqlPool } from "../storage/database.js";

/**
 * Records the deployment's first start once (the earliest server to get there wins) and returns
 * it: shadow mode is counted from it, so restarts and new replicas do not extend it.
 *
 * @example
 * ```ts
 * const firstStart = await recordFirstStart(pool); // Date of the very first start
 * ```
 */
export async function recordFirstStart(pool: SqlPool): Promise<Date> {
  await query(
    pool,
    `INSERT INTO deployment_state (key, value) VALUES ('first_start', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
     ON CONFLICT (key) DO NOTHING`,
  );
  const { rows } = await query<{ value: string }>(
    pool,
    "SELECT value FROM deployment_state WHERE key = 'first_start'",
  );
  return new Date(rows[0].value);
}
