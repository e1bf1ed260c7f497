import type pg from "pg";
import { asStorageError } from "../storage/database.js";

const DAY_MS = 86_400_000;
const PARTITION_NAME = /^usage_samples_(\d{4})(\d{2})(\d{2})$/;
// Serialises partition creation between servers; distinct from the migration lock.
const PARTITION_LOCK_KEY = "7310575185737543730";

export { utcDay } from "./utc-day.js";

/** `usage_samples_20261201` for the day starting at `dayMs`. */
export function partitionName(dayMs: number): string {
  return `usage_samples_${new Date(dayMs).toISOString().slice(0, 10).replaceAll("-", "")}`;
}

/**
 * Daily partitions of `usage_samples` on plain PostgreSQL: created before a batch that needs them
 * (in their own short transaction, so the ingest transaction takes no DDL locks), remembered, and
 * dropped when older than the retention period.
 */
export class SamplePartitions {
  readonly #known = new Set<number>();

  constructor(private readonly pool: pg.Pool) {}

  /**
   * Makes sure a partition exists for every day in `days` (UTC midnights in ms).
   *
   * @example
   * ```ts
   * await partitions.ensure(new Set(samples.map((s) => utcDay(Date.parse(s.time)))));
   * ```
   */
  async ensure(days: Iterable<number>): Promise<void> {
    const missing = [...days].filter((d) => !this.#known.has(d));
    if (missing.length === 0) return;
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw asStorageError(error);
    }
    let failed: Error | undefined;
    try {
      await client.query("BEGIN");
      await client.query("SELECT pg_advisory_xact_lock($1::bigint)", [PARTITION_LOCK_KEY]);
      for (const day of missing.sort((a, b) => a - b)) {
        const name = partitionName(day);
        const exists = await client.query<{ t: string | null }>("SELECT to_regclass($1)::text AS t", [name]);
        if (!exists.rows[0].t) {
          // Identifiers and bounds come from a number, never from input: DDL takes no parameters.
          const from = new Date(day).toISOString();
          const to = new Date(day + DAY_MS).toISOString();
          await client.query(
            `CREATE TABLE ${name} PARTITION OF usage_samples FOR VALUES FROM ('${from}') TO ('${to}')`,
          );
        }
      }
      await client.query("COMMIT");
      for (const day of missing) this.#known.add(day);
    } catch (error) {
      failed = error as Error;
      await client.query("ROLLBACK").catch(() => {});
      throw asStorageError(error);
    } finally {
      client.release(failed);
    }
  }

  /**
   * Drops partitions whose whole day is older than `retentionDays` before `now`; returns their names.
   *
   * @example
   * ```ts
   * const dropped = await partitions.dropOlderThan(90);
   * ```
   */
  async dropOlderThan(retentionDays: number, now = Date.now()): Promise<string[]> {
    if (retentionDays <= 0) return [];
    const cutoff = now - retentionDays * DAY_MS;
    const { rows } = await this.pool.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i
       JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = 'usage_samples'::regclass`,
    );
    const dropped: string[] = [];
    for (const { name } of rows) {
      const m = PARTITION_NAME.exec(name);
      if (!m) continue;
      const day = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
      if (day + DAY_MS > cutoff) continue;
      await this.pool.query(`DROP TABLE IF EXISTS ${name}`);
      this.#known.delete(day);
      dropped.push(name);
    }
    return dropped;
  }
}
