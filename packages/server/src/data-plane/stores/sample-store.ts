import type { IngestResult, UsageSample, UsageSeries } from "@jobsight/schemas";
import type pg from "pg";
import { copyBuffer } from "../copy/copy-rows.js";
import { type PreparedSamples, prepareSamples, SAMPLE_COLUMNS } from "../copy/prepared-samples.js";
import { UPSERT_HOURLY_SUMMARIES } from "../queries/hourly-summary.js";
import type { SamplePartitions } from "../queries/sample-partitions.js";
import { query, toNumber, withTransaction } from "../storage/database.js";
import type { StorageFlavour } from "../storage/migration-files.js";
import { isUniqueViolation } from "../storage/pg-errors.js";

const COLUMNS = SAMPLE_COLUMNS;
const STAGING = "usage_samples_staging";
const CREATE_STAGING = `CREATE TEMP TABLE IF NOT EXISTS ${STAGING} (
  time timestamptz NOT NULL, cluster text NOT NULL, job_id text NOT NULL, node text NOT NULL, step text NOT NULL,
  memory_bytes bigint, memory_peak_bytes bigint, cpu_seconds double precision, gpu_memory_bytes bigint,
  gpu_utilization double precision, sample jsonb NOT NULL
) ON COMMIT DELETE ROWS`;
const INSERT = `INSERT INTO usage_samples (${COLUMNS.join(", ")})
  SELECT ${COLUMNS.join(", ")} FROM ${STAGING} ON CONFLICT DO NOTHING`;
// Plain PostgreSQL keeps the hourly summary itself, from the rows this batch really inserted (so a
// resend adds nothing); TimescaleDB's continuous aggregate of the same name does it there.
const INSERT_AND_SUMMARISE = `WITH inserted AS (
  ${INSERT}
  RETURNING time, cluster, job_id, memory_bytes, memory_peak_bytes, cpu_seconds, gpu_memory_bytes
), summary AS (
  INSERT INTO job_usage_hourly AS h
    (bucket, cluster, job_id, samples, max_memory_bytes, max_cpu_seconds, max_gpu_memory_bytes, first_time, last_time)
  SELECT date_bin('1 hour', time, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS bucket, cluster, job_id, count(*),
    max(greatest(memory_bytes, memory_peak_bytes)), max(cpu_seconds), max(gpu_memory_bytes), min(time), max(time)
  FROM inserted GROUP BY 1, 2, 3 ORDER BY 2, 3, 1
  ON CONFLICT (cluster, job_id, bucket) DO UPDATE SET
    samples = h.samples + excluded.samples,
    max_memory_bytes = greatest(h.max_memory_bytes, excluded.max_memory_bytes),
    max_cpu_seconds = greatest(h.max_cpu_seconds, excluded.max_cpu_seconds),
    max_gpu_memory_bytes = greatest(h.max_gpu_memory_bytes, excluded.max_gpu_memory_bytes),
    first_time = least(h.first_time, excluded.first_time),
    last_time = greatest(h.last_time, excluded.last_time)
)
SELECT count(*)::int AS n FROM inserted`;
/** A job's usage summed up from the hourly summaries (the continuous aggregate on TimescaleDB). */
export type JobUsageSummary = {
  samples: number;
  maxMemoryBytes?: number;
  maxCpuSeconds?: number;
  maxGpuMemoryBytes?: number;
  firstTime?: string;
  lastTime?: string;
};

/**
 * A batch prepared for TimescaleDB (without the hourly summary parameters and days) was given to
 * a plain PostgreSQL sample store, which needs them: a wiring mistake, refused before anything is
 * written rather than stored without its summaries.
 */
export class PreparedSamplesMismatchError extends Error {
  readonly code = "PREPARED_SAMPLES_MISMATCH";
  constructor() {
    super(
      'samples prepared for TimescaleDB cannot be stored on plain PostgreSQL: prepare them with { flavour: "plain" }',
    );
    this.name = "PreparedSamplesMismatchError";
  }
}

/**
 * Usage samples: bulk insert (COPY straight into the table when nothing of the batch is stored
 * yet, else COPY into staging, then INSERT … ON CONFLICT DO NOTHING on the natural key
 * cluster/job/node/step/time; one transaction either way) and time-series reads.
 */
export class SampleStore {
  constructor(
    private readonly pool: pg.Pool,
    /** The storage flavour; batches for {@link insertPrepared} are prepared for it. */
    readonly flavour: StorageFlavour,
    private readonly partitions: SamplePartitions,
  ) {}

  /**
   * Stores a batch exactly once: every sample already stored (a resend) counts as a duplicate.
   * Resolves only after COMMIT.
   *
   * @example
   * ```ts
   * const { accepted, duplicates } = await samples.insert(batch.samples);
   * ```
   */
  async insert(samples: readonly UsageSample[]): Promise<IngestResult> {
    if (samples.length === 0) return { accepted: 0, duplicates: 0 };
    return this.insertPrepared(prepareSamples(samples, { flavour: this.flavour }));
  }

  /**
   * {@link insert} of a batch encoded already (by `prepareSamples` for this store's
   * {@link flavour}, maybe on another thread).
   *
   * @throws {PreparedSamplesMismatchError} on plain PostgreSQL for a batch prepared for TimescaleDB.
   * @example
   * ```ts
   * const { accepted } = await samples.insertPrepared(prepareSamples(batch, { flavour: samples.flavour }));
   * ```
   */
  async insertPrepared(batch: PreparedSamples): Promise<IngestResult> {
    if (batch.count === 0) return { accepted: 0, duplicates: 0 };
    if (this.flavour === "plain") {
      if (!batch.hourly || !batch.days) throw new PreparedSamplesMismatchError();
      await this.partitions.ensure(new Set(batch.days));
    }
    // Fast path: a batch with nothing stored yet (the usual case) is COPYed straight into
    // usage_samples, as fast as a raw COPY. The first duplicate key aborts that transaction, and
    // the batch goes again through staging and ON CONFLICT, which counts duplicates row by row.
    try {
      return await withTransaction(this.pool, async (client) => {
        await copyBuffer(client, "usage_samples", COLUMNS, batch.copyText);
        if (this.flavour === "plain") await client.query(UPSERT_HOURLY_SUMMARIES, batch.hourly);
        return { accepted: batch.count, duplicates: 0 };
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    return withTransaction(this.pool, async (client) => {
      await client.query(CREATE_STAGING);
      await copyBuffer(client, STAGING, COLUMNS, batch.copyText);
      let accepted: number;
      if (this.flavour === "plain") {
        const { rows } = await client.query<{ n: number }>(INSERT_AND_SUMMARISE);
        accepted = rows[0].n;
      } else {
        accepted = (await client.query(INSERT)).rowCount ?? 0;
      }
      return { accepted, duplicates: batch.count - accepted };
    });
  }

  /**
   * A job's samples in time order; with `stepSeconds`, one per node, step and bucket: the last
   * reading of the bucket, its `memory.peakBytes` raised to the bucket's maximum.
   *
   * @example
   * ```ts
   * const series = await samples.series("hpc1", "4242", { stepSeconds: 60 });
   * ```
   */
  async series(
    cluster: string,
    jobId: string,
    options: { stepSeconds?: number; limit?: number } = {},
  ): Promise<UsageSeries> {
    const limit = options.limit ?? 100_000;
    if (!options.stepSeconds) {
      const { rows } = await query<{ sample: UsageSample }>(
        this.pool,
        `SELECT sample FROM usage_samples WHERE cluster = $1 AND job_id = $2 ORDER BY time, node, step LIMIT $3`,
        [cluster, jobId, limit],
      );
      return { cluster, jobId, samples: rows.map((r) => r.sample) };
    }
    const { rows } = await query<{ sample: UsageSample; max_memory: string | null }>(
      this.pool,
      `SELECT sample, max_memory FROM (
         SELECT sample, time, node, step,
           max(greatest(memory_bytes, memory_peak_bytes)) OVER w AS max_memory,
           row_number() OVER (w ORDER BY time DESC) AS rn
         FROM usage_samples WHERE cluster = $1 AND job_id = $2
         WINDOW w AS (PARTITION BY node, step, floor(extract(epoch FROM time) / $3))
       ) b WHERE rn = 1 ORDER BY time, node, step LIMIT $4`,
      [cluster, jobId, options.stepSeconds, limit],
    );
    const samples = rows.map(({ sample, max_memory }) => {
      const max = toNumber(max_memory);
      if (!sample.memory || max === undefined) return sample;
      return {
        ...sample,
        memory: { ...sample.memory, peakBytes: Math.max(max, sample.memory.peakBytes ?? 0) },
      };
    });
    return { cluster, jobId, stepSeconds: options.stepSeconds, samples };
  }

  /**
   * The job's usage from the hourly summaries: same query on TimescaleDB (continuous aggregate)
   * and plain PostgreSQL (table kept by {@link insert}).
   */
  async jobSummary(cluster: string, jobId: string): Promise<JobUsageSummary> {
    const { rows } = await query<Record<string, string | null>>(
      this.pool,
      `SELECT sum(samples) AS samples, max(max_memory_bytes) AS max_memory, max(max_cpu_seconds) AS max_cpu,
         max(max_gpu_memory_bytes) AS max_gpu_memory,
         to_char(min(first_time) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS first_time,
         to_char(max(last_time) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS last_time
       FROM job_usage_hourly WHERE cluster = $1 AND job_id = $2`,
      [cluster, jobId],
    );
    const r = rows[0];
    const summary: JobUsageSummary = { samples: toNumber(r.samples) ?? 0 };
    const set = <K extends keyof JobUsageSummary>(key: K, value: JobUsageSummary[K] | undefined) => {
      if (value !== undefined && value !== null) summary[key] = value;
    };
    set("maxMemoryBytes", toNumber(r.max_memory));
    set("maxCpuSeconds", toNumber(r.max_cpu));
    set("maxGpuMemoryBytes", toNumber(r.max_gpu_memory));
    set("firstTime", r.first_time ?? undefined);
    set("lastTime", r.last_time ?? undefined);
    return summary;
  }
}
