import type { UsageSample } from "@jobsight/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleRow } from "../../../src/data-plane/copy/prepared-samples.js";
import { hourlySummaryParameters } from "../../../src/data-plane/queries/hourly-summary.js";
import { jobSamples, openTimescaleStorage, runPolicy, type TimescaleFixture } from "./timescale-fixture.js";

const HOUR_MS = 3_600_000;

type HourlyRow = {
  bucket: string;
  cluster: string;
  job_id: string;
  samples: number;
  max_memory_bytes: number | null;
  max_cpu_seconds: number | null;
  max_gpu_memory_bytes: number | null;
  first_time: string;
  last_time: string;
};

/**
 * The hourly summaries as the plain flavour computes them for the same samples (the ingest path's
 * own code, `hourlySummaryParameters`), as rows: what the continuous aggregate must equal.
 */
function plainSummaries(samples: UsageSample[]): HourlyRow[] {
  const [buckets, clusters, jobIds, counts, memory, cpu, gpu, first, last] = hourlySummaryParameters(
    samples.map(sampleRow),
  ) as [
    string[],
    string[],
    string[],
    number[],
    (number | null)[],
    (number | null)[],
    (number | null)[],
    string[],
    string[],
  ];
  return buckets
    .map((bucket, i) => ({
      bucket: new Date(bucket).toISOString(),
      cluster: clusters[i],
      job_id: jobIds[i],
      samples: Number(counts[i]),
      max_memory_bytes: memory[i] === null ? null : Number(memory[i]),
      max_cpu_seconds: cpu[i] === null ? null : Number(cpu[i]),
      max_gpu_memory_bytes: gpu[i] === null ? null : Number(gpu[i]),
      first_time: new Date(first[i]).toISOString(),
      last_time: new Date(last[i]).toISOString(),
    }))
    .sort(byKey);
}

function byKey(a: HourlyRow, b: HourlyRow): number {
  const ka = `${a.cluster}\u0000${a.job_id}\u0000${a.bucket}`;
  const kb = `${b.cluster}\u0000${b.job_id}\u0000${b.bucket}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

describe("the job_usage_hourly continuous aggregate on a real TimescaleDB server", () => {
  let fx: TimescaleFixture;
  let samples: UsageSample[];
  // Inside the refresh policy's window (3 days back to 1 hour ago), with a few hours still open.
  const start = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - 30 * HOUR_MS;

  async function aggregate(): Promise<HourlyRow[]> {
    const { rows } = await fx.storage.pool.query<HourlyRow>(
      `SELECT bucket, cluster, job_id, samples::int AS samples, max_memory_bytes::float8 AS max_memory_bytes,
         max_cpu_seconds, max_gpu_memory_bytes::float8 AS max_gpu_memory_bytes, first_time, last_time
       FROM job_usage_hourly`,
    );
    return rows
      .map((r) => ({
        ...r,
        bucket: new Date(r.bucket).toISOString(),
        first_time: new Date(r.first_time).toISOString(),
        last_time: new Date(r.last_time).toISOString(),
      }))
      .sort(byKey);
  }

  async function materialisedRows(): Promise<number> {
    const { rows: names } = await fx.storage.pool.query<{ name: string }>(
      `SELECT format('%I.%I', materialization_hypertable_schema, materialization_hypertable_name) AS name
       FROM timescaledb_information.continuous_aggregates WHERE view_name = 'job_usage_hourly'`,
    );
    // The name comes from TimescaleDB's catalogue, quoted by format('%I'), never from input.
    const { rows } = await fx.storage.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${names[0].name}`,
    );
    return rows[0].n;
  }

  beforeAll(async () => {
    fx = await openTimescaleStorage("ts_aggregate");
    const gpu = jobSamples("hpc1", "a-gpu", "g1", start + 5 * 60_000, 2_000).map((s, i) => ({
      ...s,
      gpus: [{ index: 0, memoryUsedBytes: 10 ** 9 + ((i * 7_919) % 10 ** 8), utilizationPercent: i % 100 }],
    }));
    samples = [
      ...jobSamples("hpc1", "a-1", "n1", start, 10_000),
      ...jobSamples("hpc1", "a-1", "n2", start + 7_000, 10_000),
      ...jobSamples("hpc1", "a-2", "n1", start + 12 * HOUR_MS, 3_000, 15),
      ...gpu,
    ];
    for (let i = 0; i < samples.length; i += 5_000)
      await fx.storage.samples.insert(samples.slice(i, i + 5_000));
  });
  afterAll(async () => {
    await fx?.dispose();
  });

  it("equals the plain flavour's summaries of the same samples before any refresh (real-time)", async () => {
    expect(await materialisedRows()).toBe(0);
    expect(await aggregate()).toEqual(plainSummaries(samples));
  });

  it("still equals them once the refresh policy materialised the closed hours", async () => {
    await runPolicy(fx.storage.pool, "policy_refresh_continuous_aggregate");
    expect(await materialisedRows()).toBeGreaterThan(20);
    expect(await aggregate()).toEqual(plainSummaries(samples));
    expect(await fx.storage.samples.jobSummary("hpc1", "a-1")).toMatchObject({
      samples: 20_000,
      maxMemoryBytes: Math.max(...samples.filter((s) => s.jobId === "a-1").map((s) => s.memory!.peakBytes!)),
    });
    const summary = await fx.storage.samples.jobSummary("hpc1", "a-1");
    expect(Date.parse(summary.firstTime!)).toBe(start);
  });

  it("takes late samples of a materialised hour in at the next refresh, compressed chunks included", async () => {
    const late = jobSamples("hpc1", "a-2", "n7", start + 13 * HOUR_MS, 20);
    await fx.storage.samples.insert(late);
    samples.push(...late);
    await fx.storage.pool.query(
      "SELECT compress_chunk(c, if_not_compressed => true) FROM show_chunks('usage_samples') c",
    );
    await runPolicy(fx.storage.pool, "policy_refresh_continuous_aggregate");
    expect(await aggregate()).toEqual(plainSummaries(samples));
    expect((await fx.storage.samples.jobSummary("hpc1", "a-2")).samples).toBe(3_020);
  });
});
