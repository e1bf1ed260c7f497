import type { IngestResult, JobRecord } from "@jobsight/schemas";
import type pg from "pg";
import { copyRows } from "../copy/copy-rows.js";
import { JOB_COLUMNS, jobColumnValues } from "../queries/job-columns.js";
import { withTransaction } from "../storage/database.js";

const STAGING = "jobs_staging";
const STAGING_COLUMNS = [...JOB_COLUMNS, "ord"];
// Columns a later record may leave out; the stored value is kept then.
const KEPT_WHEN_ABSENT = JOB_COLUMNS.filter(
  (c) =>
    !["cluster", "job_id", "phase", "phase_rank", "source", "user_name", "submitted_at", "record"].includes(
      c,
    ),
);

const CREATE_STAGING = `CREATE TEMP TABLE IF NOT EXISTS ${STAGING} (
  LIKE jobs INCLUDING DEFAULTS, ord integer NOT NULL
) ON COMMIT DELETE ROWS`;

// A record replaces the stored one only if its phase is not earlier; fields it leaves out are kept
// (the stored record is merged with it), and a record that changes nothing is a duplicate.
const UPSERT = `
INSERT INTO jobs (${JOB_COLUMNS.join(", ")})
SELECT DISTINCT ON (cluster, job_id) ${JOB_COLUMNS.join(", ")}
FROM ${STAGING}
ORDER BY cluster, job_id, phase_rank DESC, ord DESC
ON CONFLICT (cluster, job_id) DO UPDATE SET
  phase = excluded.phase,
  phase_rank = excluded.phase_rank,
  source = excluded.source,
  user_name = excluded.user_name,
  submitted_at = excluded.submitted_at,
  ${KEPT_WHEN_ABSENT.map((c) => `${c} = COALESCE(excluded.${c}, jobs.${c})`).join(",\n  ")},
  record = jobs.record || excluded.record,
  updated_at = now()
WHERE excluded.phase_rank >= jobs.phase_rank
  AND (jobs.record || excluded.record) IS DISTINCT FROM jobs.record`;

/**
 * Stores job lifecycle records: COPY into a staging table, then one upsert, in the caller's
 * transaction. Later phases update earlier ones; resends and stale phases count as duplicates.
 *
 * @example
 * ```ts
 * const result = await withTransaction(pool, (client) => upsertJobRecordsIn(client, records));
 * ```
 */
export async function upsertJobRecordsIn(
  client: pg.PoolClient,
  records: readonly JobRecord[],
): Promise<IngestResult> {
  if (records.length === 0) return { accepted: 0, duplicates: 0 };
  await client.query(CREATE_STAGING);
  await copyRows(
    client,
    STAGING,
    STAGING_COLUMNS,
    records.map((r, i) => [...jobColumnValues(r), i]),
  );
  const result = await client.query(UPSERT);
  const accepted = result.rowCount ?? 0;
  return { accepted, duplicates: records.length - accepted };
}

/**
 * Stores job records in their own transaction, committed before this resolves.
 *
 * @example
 * ```ts
 * const { accepted, duplicates } = await upsertJobRecords(pool, batch.records);
 * ```
 */
export function upsertJobRecords(pool: pg.Pool, records: readonly JobRecord[]): Promise<IngestResult> {
  return withTransaction(pool, (client) => upsertJobRecordsIn(client, records));
}
