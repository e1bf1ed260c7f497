import type { JobPage, JobRecord } from "@jobsight/schemas";
import type pg from "pg";
import { query } from "../storage/database.js";
import { decodeJobCursor, encodeJobCursor } from "./job-cursor.js";

/** Which jobs to list; every field narrows the list. */
export type JobFilter = {
  cluster?: string;
  /** Only jobs of these clusters (a platform token bound to a cluster). */
  clusters?: readonly string[];
  user?: string;
  account?: string;
  partition?: string;
  /** Final state, e.g. FAILED. */
  state?: string;
  /** Submitted at or after (RFC 3339). */
  from?: string;
  /** Submitted before (RFC 3339). */
  to?: string;
};

/** Options of {@link listJobs}. */
export type ListJobsOptions = JobFilter & {
  /** Page size. @default 100 */
  limit?: number;
  /** Cursor from the previous page's `nextCursor`. @default undefined */
  cursor?: string;
};

const CURSOR_TIME = `to_char(submitted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** Builds `WHERE` clauses with numbered parameters; only values go into `params`. */
class Where {
  readonly clauses: string[] = [];
  readonly params: unknown[] = [];
  add(sqlWithPlaceholder: (p: string) => string, value: unknown): void {
    if (value === undefined) return;
    this.params.push(value);
    this.clauses.push(sqlWithPlaceholder(`$${this.params.length}`));
  }
  toString(): string {
    return this.clauses.length > 0 ? `WHERE ${this.clauses.join(" AND ")}` : "";
  }
}

/**
 * Jobs newest first (by submit time), one page at a time with a keyset cursor that stays correct
 * while new jobs arrive.
 *
 * @example
 * ```ts
 * let page = await listJobs(pool, { user: "alice", limit: 50 });
 * while (page.nextCursor) page = await listJobs(pool, { user: "alice", limit: 50, cursor: page.nextCursor });
 * ```
 */
export async function listJobs(pool: pg.Pool, options: ListJobsOptions): Promise<JobPage> {
  const limit = Math.max(1, Math.min(options.limit ?? 100, 1000));
  const where = new Where();
  where.add((p) => `cluster = ${p}`, options.cluster);
  where.add((p) => `cluster = ANY(${p}::text[])`, options.clusters ? [...options.clusters] : undefined);
  where.add((p) => `user_name = ${p}`, options.user);
  where.add((p) => `account = ${p}`, options.account);
  where.add((p) => `partition = ${p}`, options.partition);
  where.add((p) => `state = ${p}`, options.state);
  where.add((p) => `submitted_at >= ${p}::timestamptz`, options.from);
  where.add((p) => `submitted_at < ${p}::timestamptz`, options.to);
  if (options.cursor) {
    const c = decodeJobCursor(options.cursor);
    where.params.push(c.submittedAt, c.cluster, c.jobId);
    const n = where.params.length;
    where.clauses.push(`(submitted_at, cluster, job_id) < ($${n - 2}::timestamptz, $${n - 1}, $${n})`);
  }
  where.params.push(limit + 1);
  const { rows } = await query<{ record: JobRecord; cluster: string; job_id: string; cursor_time: string }>(
    pool,
    `SELECT record, cluster, job_id, ${CURSOR_TIME} AS cursor_time FROM jobs ${where}
     ORDER BY submitted_at DESC, cluster DESC, job_id DESC LIMIT $${where.params.length}`,
    where.params,
  );
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  return {
    items: page.map((r) => r.record),
    nextCursor:
      more && last
        ? encodeJobCursor({ submittedAt: last.cursor_time, cluster: last.cluster, jobId: last.job_id })
        : null,
  };
}

/** Who may see which jobs: a researcher only their own, a cluster-bound token only its cluster. */
export type JobVisibility = { user?: string; cluster?: string };

/**
 * The records of a job id, on one cluster or on every cluster where it exists, limited to what
 * `visibility` allows.
 *
 * @example
 * ```ts
 * const [job] = await findJobs(pool, "4242", { cluster: "hpc1" });
 * ```
 */
export async function findJobs(
  pool: pg.Pool,
  jobId: string,
  filter: { cluster?: string } & JobVisibility = {},
): Promise<JobRecord[]> {
  const where = new Where();
  where.add((p) => `job_id = ${p}`, jobId);
  where.add((p) => `cluster = ${p}`, filter.cluster);
  where.add((p) => `user_name = ${p}`, filter.user);
  const { rows } = await query<{ record: JobRecord }>(
    pool,
    `SELECT record FROM jobs ${where} ORDER BY cluster LIMIT 20`,
    where.params,
  );
  return rows.map((r) => r.record);
}

/** Number of jobs stored (optionally of one cluster). */
export async function countJobs(pool: pg.Pool, cluster?: string): Promise<number> {
  const { rows } = await query<{ n: string }>(
    pool,
    cluster === undefined
      ? "SELECT count(*) AS n FROM jobs"
      : "SELECT count(*) AS n FROM jobs WHERE cluster = $1",
    cluster === undefined ? [] : [cluster],
  );
  return Number(rows[0].n);
}
