import { rfc3339ToUnixNano } from "@jobsight/otel-bridge";
import type { CopyValue } from "../copy/copy-text.js";

const HOUR_MS = 3_600_000;

/**
 * Adds a batch known to be inserted whole to the hourly per-job summaries (plain PostgreSQL; the
 * continuous aggregate does it on TimescaleDB). One row per (cluster, job, hour) of the batch,
 * summed up here rather than in the database, so the statement carries a few rows, not the batch.
 */
export const UPSERT_HOURLY_SUMMARIES = `INSERT INTO job_usage_hourly AS h
    (bucket, cluster, job_id, samples, max_memory_bytes, max_cpu_seconds, max_gpu_memory_bytes, first_time, last_time)
  SELECT * FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::float8[],
    $7::bigint[], $8::timestamptz[], $9::timestamptz[])
  ORDER BY 2, 3, 1
  ON CONFLICT (cluster, job_id, bucket) DO UPDATE SET
    samples = h.samples + excluded.samples,
    max_memory_bytes = greatest(h.max_memory_bytes, excluded.max_memory_bytes),
    max_cpu_seconds = greatest(h.max_cpu_seconds, excluded.max_cpu_seconds),
    max_gpu_memory_bytes = greatest(h.max_gpu_memory_bytes, excluded.max_gpu_memory_bytes),
    first_time = least(h.first_time, excluded.first_time),
    last_time = greatest(h.last_time, excluded.last_time)`;

type Instant = { text: string; ms: number };
type Summary = {
  bucket: number;
  cluster: string;
  jobId: string;
  samples: number;
  maxMemory: number | null;
  maxCpu: number | null;
  maxGpuMemory: number | null;
  first: Instant;
  last: Instant;
};

/** Orders two instants exactly: by millisecond, then (rarely needed) by nanosecond. */
function before(a: Instant, b: Instant): boolean {
  if (a.ms !== b.ms) return a.ms < b.ms;
  if (a.text === b.text) return false;
  // Same form (UTC, same number of digits): text order is time order.
  if (a.text.length === b.text.length && a.text.endsWith("Z") && b.text.endsWith("Z")) return a.text < b.text;
  return (rfc3339ToUnixNano(a.text) ?? 0n) < (rfc3339ToUnixNano(b.text) ?? 0n);
}

function instant(text: string): Instant {
  let ms = Date.parse(text);
  if (Number.isNaN(ms)) ms = Number((rfc3339ToUnixNano(text) ?? 0n) / 1_000_000n);
  return { text, ms: Math.floor(ms) };
}

// max() and greatest() of PostgreSQL: nulls never win.
function larger(a: number | null, b: CopyValue): number | null {
  if (typeof b !== "number" || !Number.isFinite(b)) return a;
  return a === null || b > a ? b : a;
}

/**
 * The {@link UPSERT_HOURLY_SUMMARIES} parameters for rows in `sampleRow` order (time, cluster,
 * job id, node, step, memory, peak memory, CPU seconds, GPU memory, …): the same buckets, counts,
 * maxima and first/last times as `date_bin('1 hour', …)` grouping in SQL gives.
 *
 * @example
 * ```ts
 * await client.query(UPSERT_HOURLY_SUMMARIES, hourlySummaryParameters(rows));
 * ```
 */
export function hourlySummaryParameters(rows: readonly (readonly CopyValue[])[]): unknown[][] {
  const groups = new Map<string, Summary>();
  for (const row of rows) {
    const time = instant(row[0] as string);
    const cluster = row[1] as string;
    const jobId = row[2] as string;
    const bucket = Math.floor(time.ms / HOUR_MS) * HOUR_MS;
    const key = `${cluster}\u0000${jobId}\u0000${bucket}`;
    let s = groups.get(key);
    if (!s) {
      s = {
        bucket,
        cluster,
        jobId,
        samples: 0,
        maxMemory: null,
        maxCpu: null,
        maxGpuMemory: null,
        first: time,
        last: time,
      };
      groups.set(key, s);
    }
    s.samples++;
    s.maxMemory = larger(larger(s.maxMemory, row[5]), row[6]);
    s.maxCpu = larger(s.maxCpu, row[7]);
    s.maxGpuMemory = larger(s.maxGpuMemory, row[8]);
    if (before(time, s.first)) s.first = time;
    if (before(s.last, time)) s.last = time;
  }
  const summaries = [...groups.values()];
  return [
    summaries.map((s) => new Date(s.bucket).toISOString()),
    summaries.map((s) => s.cluster),
    summaries.map((s) => s.jobId),
    summaries.map((s) => s.samples),
    summaries.map((s) => s.maxMemory),
    summaries.map((s) => s.maxCpu),
    summaries.map((s) => s.maxGpuMemory),
    summaries.map((s) => s.first.text),
    summaries.map((s) => s.last.text),
  ];
}
