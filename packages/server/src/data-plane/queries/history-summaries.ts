import type pg from "pg";
import { query, toNumber } from "../storage/database.js";

/** Percentiles of one quantity over a group's completed jobs. */
export type Distribution = {
  /** Jobs with a value. */
  n: number;
  p50?: number;
  p90?: number;
  p99?: number;
  max?: number;
};

/** What the predictor learns from about one group of past jobs. */
export type GroupSummary = {
  /** `user`: all jobs of a user; `user_executable`: a user's jobs of one executable. */
  level: "user" | "user_executable";
  user: string;
  /** The executable of a `user_executable` group (absent: jobs without a known executable). */
  executable?: string;
  /** Ended jobs. */
  count: number;
  /** Jobs that completed: their peaks are what they needed. */
  completed: number;
  /** Jobs killed by a limit (out of memory, timeout): their peaks are only lower bounds. */
  censored: number;
  /** End time of the newest job. */
  lastEndedAt?: string;
  peakMemoryBytes: Distribution;
  runTimeSeconds: Distribution;
  /** Newest first, of completed jobs. */
  last: { peakMemoryBytes: number[]; runTimeSeconds: number[] };
};

/** Which jobs to summarise. */
export type HistorySummaryOptions = {
  cluster?: string;
  user?: string;
  executable?: string;
  /** Only jobs that ended at or after this time (RFC 3339). */
  since?: string;
  /** Only jobs that ended before this time: summaries as they were then (backtests). */
  before?: string;
  /** How many last values to return per group. @default 5 */
  lastN?: number;
  /** Leave out groups with fewer ended jobs. @default 1 */
  minCount?: number;
  /** Most groups returned, largest first. @default 10000 */
  limit?: number;
};

const DIST = (column: string, alias: string) => `
  count(${column}) FILTER (WHERE state = 'COMPLETED') AS ${alias}_n,
  percentile_cont(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP (ORDER BY ${column}) FILTER (WHERE state = 'COMPLETED') AS ${alias}_p,
  max(${column}) FILTER (WHERE state = 'COMPLETED') AS ${alias}_max,
  (array_agg(${column} ORDER BY ended_at DESC) FILTER (WHERE state = 'COMPLETED' AND ${column} IS NOT NULL))[1:$1] AS ${alias}_last`;

/**
 * Per-group history summaries for the predictor: count, last values and percentiles of peak
 * memory and run time, per (user, executable) and per user, of ended jobs. One query with
 * grouping sets; the same on TimescaleDB and plain PostgreSQL.
 *
 * @example
 * ```ts
 * const groups = await historySummaries(pool, { cluster: "hpc1", user: "alice" });
 * const perUser = groups.find((g) => g.level === "user");
 * ```
 */
export async function historySummaries(
  pool: pg.Pool,
  options: HistorySummaryOptions = {},
): Promise<GroupSummary[]> {
  const params: unknown[] = [options.lastN ?? 5];
  const where = ["phase = 'ended'"];
  const add = (clause: (p: string) => string, value: unknown) => {
    if (value === undefined) return;
    params.push(value);
    where.push(clause(`$${params.length}`));
  };
  add((p) => `cluster = ${p}`, options.cluster);
  add((p) => `user_name = ${p}`, options.user);
  add((p) => `executable = ${p}`, options.executable);
  add((p) => `ended_at >= ${p}::timestamptz`, options.since);
  add((p) => `ended_at < ${p}::timestamptz`, options.before);
  params.push(options.minCount ?? 1, options.limit ?? 10_000);
  const n = params.length;
  const { rows } = await query<Record<string, unknown>>(
    pool,
    `SELECT user_name, executable, GROUPING(executable) AS per_user,
       count(*) AS count,
       count(*) FILTER (WHERE state = 'COMPLETED') AS completed,
       count(*) FILTER (WHERE state IN ('OUT_OF_MEMORY', 'TIMEOUT')) AS censored,
       to_char(max(ended_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS last_ended_at,
       ${DIST("peak_memory_bytes", "mem")},
       ${DIST("run_time_seconds", "run")}
     FROM jobs WHERE ${where.join(" AND ")}
     GROUP BY GROUPING SETS ((user_name, executable), (user_name))
     HAVING count(*) >= $${n - 1}
     ORDER BY count(*) DESC, user_name, executable NULLS FIRST
     LIMIT $${n}`,
    params,
  );
  return rows.map(toSummary);
}

function toSummary(r: Record<string, unknown>): GroupSummary {
  const perUser = Number(r.per_user) === 1;
  const summary: GroupSummary = {
    level: perUser ? "user" : "user_executable",
    user: String(r.user_name),
    count: Number(r.count),
    completed: Number(r.completed),
    censored: Number(r.censored),
    peakMemoryBytes: distribution(r, "mem"),
    runTimeSeconds: distribution(r, "run"),
    last: { peakMemoryBytes: numbers(r.mem_last), runTimeSeconds: numbers(r.run_last) },
  };
  if (!perUser && r.executable !== null) summary.executable = String(r.executable);
  if (r.last_ended_at) summary.lastEndedAt = String(r.last_ended_at);
  return summary;
}

function distribution(r: Record<string, unknown>, alias: string): Distribution {
  const d: Distribution = { n: Number(r[`${alias}_n`]) };
  const p = r[`${alias}_p`] as (number | null)[] | null;
  if (p) {
    if (p[0] !== null) d.p50 = Number(p[0]);
    if (p[1] !== null) d.p90 = Number(p[1]);
    if (p[2] !== null) d.p99 = Number(p[2]);
  }
  const max = toNumber(r[`${alias}_max`]);
  if (max !== undefined) d.max = max;
  return d;
}

function numbers(value: unknown): number[] {
  if (!Array.isArray(value)) return [];
  return value.map(Number).filter(Number.isFinite);
}
