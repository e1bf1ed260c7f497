import type { UsageSample } from "@jobsight/schemas";
import { hourlySummaryParameters } from "../queries/hourly-summary.js";
import { utcDay } from "../queries/utc-day.js";
import type { StorageFlavour } from "../storage/migration-files.js";
import type { BufferPool } from "./buffer-pool.js";
import { type CopyValue, copyTextBuffer } from "./copy-text.js";

/** Columns of `usage_samples`, in the order of {@link sampleRow}. */
export const SAMPLE_COLUMNS = [
  "time",
  "cluster",
  "job_id",
  "node",
  "step",
  "memory_bytes",
  "memory_peak_bytes",
  "cpu_seconds",
  "gpu_memory_bytes",
  "gpu_utilization",
  "sample",
] as const;

/**
 * The `usage_samples` row of a sample, in {@link SAMPLE_COLUMNS} order (also what the ingest
 * benchmark COPYs raw as its reference).
 *
 * @example
 * ```ts
 * await copyRows(client, "usage_samples", SAMPLE_COLUMNS, samples.map(sampleRow));
 * ```
 */
export function sampleRow(s: UsageSample): CopyValue[] {
  const gpus = s.gpus ?? [];
  const gpuMemory = gpus.length > 0 ? gpus.reduce((sum, g) => sum + g.memoryUsedBytes, 0) : undefined;
  const gpuUtil =
    gpus.length > 0 ? gpus.reduce((sum, g) => sum + g.utilizationPercent, 0) / gpus.length : undefined;
  return [
    s.time,
    s.cluster,
    s.jobId,
    s.node,
    s.step ?? "",
    s.memory?.currentBytes,
    s.memory?.peakBytes,
    s.cpu?.usageSeconds,
    gpuMemory,
    gpuUtil,
    s,
  ];
}

/**
 * A batch of samples encoded for storage, ready to COPY: everything the sample store needs and
 * nothing it must compute again. Plain data and one buffer, so a worker thread can make it and
 * hand it over (the buffer transferred, not copied).
 */
export type PreparedSamples = {
  /** Samples in the batch. */
  count: number;
  /** The rows in COPY text format, {@link SAMPLE_COLUMNS} order. */
  copyText: Uint8Array;
  /**
   * The `UPSERT_HOURLY_SUMMARIES` parameters of the whole batch (plain PostgreSQL); absent when
   * prepared for TimescaleDB.
   */
  hourly?: unknown[][];
  /**
   * The UTC days (ms at midnight) the samples fall on, for the daily partitions (plain
   * PostgreSQL); absent when prepared for TimescaleDB.
   */
  days?: number[];
};

/** Options of {@link prepareSamples}. */
export type PrepareSamplesOptions = {
  /**
   * The storage flavour of the sample store the batch is for. `"plain"` adds what only plain
   * PostgreSQL uses: the hourly summary parameters and the UTC days (it keeps `job_usage_hourly`
   * and the daily partitions itself). `"timescale"` leaves both out: the continuous aggregate and
   * the hypertable's chunks do that work there, and computing them is a pass over every sample
   * per batch. A plain store refuses a batch prepared for TimescaleDB.
   * @default "plain"
   */
  flavour?: StorageFlavour;
  /**
   * Where the COPY text's buffer comes from: the caller gives it back once the batch is stored.
   * @default a buffer of its own
   */
  buffers?: BufferPool;
};

/**
 * Encodes samples (already validated) for {@link SampleStore.insertPrepared}.
 *
 * @example
 * ```ts
 * await storage.samples.insertPrepared(prepareSamples(batch.samples, { flavour: storage.flavour }));
 * ```
 */
export function prepareSamples(
  samples: readonly UsageSample[],
  options: PrepareSamplesOptions = {},
): PreparedSamples {
  const rows = samples.map(sampleRow);
  const prepared: PreparedSamples = {
    count: samples.length,
    copyText: copyTextBuffer(rows, options.buffers),
  };
  if (options.flavour === "timescale") return prepared;
  const hourly = hourlySummaryParameters(rows);
  // The days are those of the hour buckets: a few per batch, parsed once each (hours never
  // straddle a day), rather than every sample's time parsed a second time.
  const days = new Set((hourly[0] as string[]).map((bucket) => utcDay(Date.parse(bucket))));
  return { ...prepared, hourly, days: [...days] };
}
