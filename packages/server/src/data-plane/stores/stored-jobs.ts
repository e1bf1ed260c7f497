import type { JobPeaks, JobSpec, JobState, ResourceRequest } from "@jobsight/schemas";
import type pg from "pg";
import { query } from "../storage/database.js";

/** What the intelligence plane reads of a stored job (a subset of its JobRecord). */
export type StoredJob = {
  cluster: string;
  jobId: string;
  spec: JobSpec;
  /** Unix seconds. */
  submittedAt: number;
  startedAt?: number;
  endedAt?: number;
  state?: JobState;
  /** The signal that ended it, if one did. */
  signal?: number;
  peaks?: JobPeaks;
  /** What the scheduler gave the job (where it differs from the request). */
  allocated?: ResourceRequest;
};

/** A page of stored jobs and the key to ask for the next one (`undefined` after the last). */
export type StoredJobPage = { jobs: StoredJob[]; next?: PageKey };

/** Keyset position: the order column as text (exact to the microsecond), cluster and job id. */
export type PageKey = { at: string; cluster: string; jobId: string };

type Row = {
  cluster: string;
  job_id: string;
  spec: JobSpec;
  peaks: JobPeaks | null;
  allocated: ResourceRequest | null;
  state: JobState | null;
  signal: number | null;
  submitted: number;
  started: number | null;
  ended: number | null;
  key_at: string;
};

const SELECT = `SELECT cluster, job_id, record->'spec' AS spec, record->'peaks' AS peaks,
  record->'allocated' AS allocated, state, (record->'outcome'->>'signal')::int AS signal,
  extract(epoch FROM submitted_at)::float8 AS submitted, extract(epoch FROM started_at)::float8 AS started,
  extract(epoch FROM ended_at)::float8 AS ended`;

function toStoredJob(r: Row): StoredJob {
  const job: StoredJob = { cluster: r.cluster, jobId: r.job_id, spec: r.spec, submittedAt: r.submitted };
  if (r.started !== null) job.startedAt = r.started;
  if (r.ended !== null) job.endedAt = r.ended;
  if (r.state !== null) job.state = r.state;
  if (r.signal !== null) job.signal = r.signal;
  if (r.peaks !== null) job.peaks = r.peaks;
  if (r.allocated !== null) job.allocated = r.allocated;
  return job;
}

function page(rows: Row[], limit: number): StoredJobPage {
  const last = rows[rows.length - 1];
  return {
    jobs: rows.map(toStoredJob),
    next: rows.length === limit ? { at: last.key_at, cluster: last.cluster, jobId: last.job_id } : undefined,
  };
}

/**
 * Ended jobs one page at a time, by submit time (training) or end time (the live feature state),
 * with a keyset that stays exact however many jobs share a timestamp.
 *
 * @example
 * ```ts
 * let p = await endedJobsPage(pool, "submitted", undefined, 5000);
 * while (p.next) p = await endedJobsPage(pool, "submitted", p.next, 5000);
 * ```
 */
export async function endedJobsPage(
  pool: pg.Pool,
  order: "submitted" | "ended",
  after: PageKey | undefined,
  limit: number,
): Promise<StoredJobPage> {
  const column = order === "submitted" ? "submitted_at" : "ended_at";
  const params: unknown[] = [limit];
  let where = "phase = 'ended'";
  if (order === "ended") where += " AND ended_at IS NOT NULL";
  if (after) {
    params.push(after.at, after.cluster, after.jobId);
    where += ` AND (${column}, cluster, job_id) > ($2::timestamptz, $3, $4)`;
  }
  const { rows } = await query<Row>(
    pool,
    `${SELECT}, ${column}::text AS key_at FROM jobs WHERE ${where}
     ORDER BY ${column}, cluster, job_id LIMIT $1`,
    params,
  );
  return page(rows, limit);
}

/**
 * Ended jobs whose row changed at or after `lagSeconds` before `since` (a PostgreSQL timestamp as
 * text), oldest change first, and the newest change seen (never before `since`). The lag catches rows of transactions
 * that committed late; callers deduplicate the rows that come back again. `changed` counts every
 * row of the window; with `known`, the jobs it names are not read in full (only their keys are).
 *
 * @example
 * ```ts
 * const { jobs, newest } = await endedJobsUpdatedSince(pool, cursor, 60, 50_000, (c, id) => seen.has(`${c}/${id}`));
 * ```
 */
export async function endedJobsUpdatedSince(
  pool: pg.Pool,
  since: string,
  lagSeconds: number,
  limit: number,
  known?: (cluster: string, jobId: string) => boolean,
): Promise<{ jobs: StoredJob[]; newest?: string; changed: number }> {
  if (!known) {
    const { rows } = await query<Row>(
      pool,
      `${SELECT}, greatest(updated_at, $1::timestamptz)::text AS key_at FROM jobs
       WHERE phase = 'ended' AND updated_at >= $1::timestamptz - make_interval(secs => $2)
       ORDER BY updated_at LIMIT $3`,
      [since, lagSeconds, limit],
    );
    const newest = rows.length > 0 ? rows[rows.length - 1].key_at : undefined;
    return { jobs: rows.map(toStoredJob), newest, changed: rows.length };
  }
  // The window re-reads every row of the last `lagSeconds` on every refresh (after an import,
  // tens of thousands): their keys are cheap, their records are not, and a job already known
  // needs nothing more.
  const { rows: keys } = await query<{ cluster: string; job_id: string; key_at: string }>(
    pool,
    `SELECT cluster, job_id, greatest(updated_at, $1::timestamptz)::text AS key_at FROM jobs
     WHERE phase = 'ended' AND updated_at >= $1::timestamptz - make_interval(secs => $2)
     ORDER BY updated_at LIMIT $3`,
    [since, lagSeconds, limit],
  );
  const newest = keys.length > 0 ? keys[keys.length - 1].key_at : undefined;
  const unknown = keys.filter((k) => !known(k.cluster, k.job_id));
  if (unknown.length === 0) return { jobs: [], newest, changed: keys.length };
  const { rows } = await query<Row>(
    pool,
    `${SELECT} FROM jobs WHERE phase = 'ended'
     AND (cluster, job_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
    [unknown.map((k) => k.cluster), unknown.map((k) => k.job_id)],
  );
  return { jobs: rows.map(toStoredJob), newest, changed: keys.length };
}

/** The newest change of any ended job (where the live feed starts after a full load). */
export async function newestEndedUpdate(pool: pg.Pool): Promise<string | undefined> {
  const { rows } = await query<{ t: string | null }>(
    pool,
    "SELECT max(updated_at)::text AS t FROM jobs WHERE phase = 'ended'",
  );
  return rows[0]?.t ?? undefined;
}

/**
 * Ended jobs submitted in `[from, to]` (Unix seconds), optionally of one cluster, for linking
 * recorded predictions to what the jobs then did.
 */
export async function endedJobsSubmittedBetween(
  pool: pg.Pool,
  from: number,
  to: number,
  cluster: string | undefined,
  limit: number,
): Promise<StoredJob[]> {
  const { rows } = await query<Row>(
    pool,
    `${SELECT}, submitted_at::text AS key_at FROM jobs
     WHERE phase = 'ended' AND submitted_at >= to_timestamp($1) AND submitted_at <= to_timestamp($2)
       AND ($3::text IS NULL OR cluster = $3)
     ORDER BY submitted_at LIMIT $4`,
    [from, to, cluster ?? null, limit],
  );
  return rows.map(toStoredJob);
}
