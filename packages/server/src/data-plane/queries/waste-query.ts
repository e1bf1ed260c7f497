import type { WasteGpuType, WasteReport, WasteRow } from "@jobsight/schemas";
import type pg from "pg";
import { query, toNumber } from "../storage/database.js";
import { SAMPLED_IDLE_CTES, sampledIdleFields } from "./sampled-idle.js";

/** What a waste report groups by. */
export type WasteGrouping = WasteReport["by"];

/** Options of {@link wasteReport}. */
export type WasteReportOptions = {
  /** Group by user, account or partition. @default "user" */
  by?: WasteGrouping;
  /** Only jobs of this cluster. @default undefined (every cluster) */
  cluster?: string;
  /** Only jobs that ended at or after this time (RFC 3339). @default undefined */
  from?: string;
  /** Only jobs that ended before this time (RFC 3339). @default undefined */
  to?: string;
  /** The report's `generatedAt`. @default the current time */
  now?: Date;
};

// Identifiers from this closed set only; every value the caller gives is a bind parameter.
const GROUP_COLUMN: Record<WasteGrouping, string> = {
  user: "user_name",
  account: "account",
  partition: "partition",
};

// One pair of sums per resource, each over the jobs where both sides are known: a job whose usage
// was never measured must not count as if it had used nothing. Beside them, idle cores and GPUs
// measured from the samples (sampled-idle.ts), with what the samples did not cover.
// GPU-seconds are also split by the GPU type requested, which the site's rates may price apart.
const REPORT_SQL = (column: string) => `
  WITH ended AS (
    SELECT coalesce(${column}, '') AS key, cluster, job_id, started_at, ended_at,
      run_time_seconds AS run,
      coalesce(run_time_seconds, extract(epoch FROM ended_at - started_at)::float8) AS run_span,
      requested_memory_bytes::float8 AS mem_req,
      peak_memory_bytes::float8 AS mem_used,
      (record #>> '{spec,requested,cores}')::float8 AS cores_req,
      coalesce((record #>> '{peaks,cpuTimeSeconds}')::float8,
               (record #>> '{peaks,coresUsed}')::float8 * run_time_seconds) AS cpu_used,
      coalesce((record #>> '{spec,requested,gpus}')::float8, 0) AS gpus_req,
      lower(coalesce(record #>> '{spec,requested,gpuModel}', '')) AS gpu_type,
      (record #>> '{peaks,gpusUsed}')::float8 AS gpus_used,
      requested_walltime_seconds::float8 AS wall_req,
      coalesce((record #>> '{allocated,cores}')::float8, (record #>> '{spec,requested,cores}')::float8) AS cores_res,
      coalesce((record #>> '{allocated,gpus}')::float8, (record #>> '{spec,requested,gpus}')::float8, 0) AS gpus_res,
      greatest(1, coalesce(
        CASE WHEN jsonb_typeof(record -> 'nodes') = 'array' THEN jsonb_array_length(record -> 'nodes') END,
        (record #>> '{allocated,nodes}')::int,
        (record #>> '{spec,requested,nodes}')::int,
        1))::float8 AS node_count
    FROM jobs
    WHERE phase = 'ended'
      AND ($1::text IS NULL OR cluster = $1)
      AND ($2::timestamptz IS NULL OR ended_at >= $2)
      AND ($3::timestamptz IS NULL OR ended_at < $3)
  ), sums AS (
    SELECT key, count(*) AS jobs,
      sum(mem_req * run) FILTER (WHERE run IS NOT NULL AND mem_req IS NOT NULL AND mem_used IS NOT NULL) AS mem_req_s,
      sum(mem_used * run) FILTER (WHERE run IS NOT NULL AND mem_req IS NOT NULL AND mem_used IS NOT NULL) AS mem_used_s,
      sum(cores_req * run) FILTER (WHERE run IS NOT NULL AND cores_req IS NOT NULL AND cpu_used IS NOT NULL) AS cores_req_s,
      sum(cpu_used) FILTER (WHERE run IS NOT NULL AND cores_req IS NOT NULL AND cpu_used IS NOT NULL) AS cores_used_s,
      sum(gpus_req * run) FILTER (WHERE run IS NOT NULL AND (gpus_req = 0 OR gpus_used IS NOT NULL)) AS gpus_req_s,
      sum(coalesce(gpus_used, 0) * run) FILTER (WHERE run IS NOT NULL AND (gpus_req = 0 OR gpus_used IS NOT NULL)) AS gpus_used_s,
      sum(wall_req) FILTER (WHERE run IS NOT NULL AND wall_req IS NOT NULL) AS wall_req_s,
      sum(run) FILTER (WHERE run IS NOT NULL AND wall_req IS NOT NULL) AS wall_used_s
    FROM ended GROUP BY key
  ),${SAMPLED_IDLE_CTES}, gpu_types AS (
    SELECT e.key, e.gpu_type,
      sum(e.gpus_req * e.run) FILTER (WHERE e.run IS NOT NULL AND (e.gpus_req = 0 OR e.gpus_used IS NOT NULL)) AS req_s,
      sum(coalesce(e.gpus_used, 0) * e.run) FILTER (WHERE e.run IS NOT NULL AND (e.gpus_req = 0 OR e.gpus_used IS NOT NULL)) AS used_s,
      CASE WHEN sum(j.obs_gpu_s) > 0 THEN sum(j.idle_gpu_s) END AS idle_s
    FROM ended e JOIN job_idle j USING (key, cluster, job_id)
    WHERE e.gpus_req > 0 OR e.gpus_res > 0
    GROUP BY e.key, e.gpu_type
  ), gpu_type_rows AS (
    SELECT key, jsonb_agg(jsonb_strip_nulls(jsonb_build_object(
        'type', gpu_type, 'gpuSecondsRequested', coalesce(req_s, 0), 'gpuSecondsUsed', coalesce(used_s, 0),
        'idleGpuSeconds', idle_s
      )) ORDER BY gpu_type) AS gpu_types
    FROM gpu_types GROUP BY key
  )
  SELECT sums.*, idle.idle_core_s, idle.obs_core_s, idle.unobs_core_s, idle.idle_gpu_s, idle.obs_gpu_s,
    idle.unobs_gpu_s, idle.jobs_without_cpu, idle.jobs_without_gpu, idle_top.jobs AS idle_jobs,
    gpu_type_rows.gpu_types
  FROM sums LEFT JOIN idle USING (key) LEFT JOIN idle_top USING (key) LEFT JOIN gpu_type_rows USING (key)
  ORDER BY coalesce(mem_req_s, 0) - coalesce(mem_used_s, 0) DESC, key`;

/**
 * Requested against used resources of ended jobs, one row per user, account or partition (an
 * empty `key` for jobs without one), largest memory waste first. Memory, cores and GPUs are
 * weighted by run time (byte-seconds, core-seconds, GPU-seconds); each resource's two sums cover
 * only the jobs where both the request and the use are known. Each row also says how many
 * core-seconds and GPU-seconds sat idle by the samples (reserved × sampled time − used), how much
 * of the reservation no sample covered, which jobs had no samples, and its most idle jobs.
 *
 * @example
 * ```ts
 * const report = await wasteReport(pool, { by: "account", cluster: "hpc1" });
 * const worst = report.rows[0]; // the account holding the most unused memory
 * ```
 */
export async function wasteReport(pool: pg.Pool, options: WasteReportOptions = {}): Promise<WasteReport> {
  const by = options.by ?? "user";
  const { rows } = await query<Record<string, unknown>>(pool, REPORT_SQL(GROUP_COLUMN[by]), [
    options.cluster ?? null,
    options.from ?? null,
    options.to ?? null,
  ]);
  return { generatedAt: (options.now ?? new Date()).toISOString(), by, rows: rows.map(toRow) };
}

function toRow(r: Record<string, unknown>): WasteRow {
  const sum = (column: string) => Math.max(0, toNumber(r[column]) ?? 0);
  const gpuTypes = Array.isArray(r.gpu_types)
    ? (r.gpu_types as Record<string, unknown>[]).map(toGpuType)
    : [];
  return {
    key: String(r.key),
    jobs: Number(r.jobs),
    memoryRequestedByteSeconds: sum("mem_req_s"),
    memoryUsedByteSeconds: sum("mem_used_s"),
    coreSecondsRequested: sum("cores_req_s"),
    coreSecondsUsed: sum("cores_used_s"),
    gpuSecondsRequested: sum("gpus_req_s"),
    gpuSecondsUsed: sum("gpus_used_s"),
    walltimeRequestedSeconds: sum("wall_req_s"),
    walltimeUsedSeconds: sum("wall_used_s"),
    ...sampledIdleFields(r),
    ...(gpuTypes.length > 0 ? { gpuTypes } : {}),
  };
}

function toGpuType(t: Record<string, unknown>): WasteGpuType {
  const n = (key: string) => Math.max(0, toNumber(t[key]) ?? 0);
  return {
    type: String(t.type ?? ""),
    gpuSecondsRequested: n("gpuSecondsRequested"),
    gpuSecondsUsed: n("gpuSecondsUsed"),
    ...(t.idleGpuSeconds !== undefined ? { idleGpuSeconds: n("idleGpuSeconds") } : {}),
  };
}
