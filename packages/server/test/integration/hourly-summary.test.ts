import type { UsageSample } from "@jobsight/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareSamples } from "../../src/data-plane/copy/prepared-samples.js";
import { PreparedSamplesMismatchError } from "../../src/data-plane/stores/sample-store.js";
import { openTestStorage, type StorageFixture } from "./storage-fixture.js";

// The hourly summary is kept two ways (from a batch COPYed whole, and from the rows a batch with
// duplicates really inserted); both must agree with the samples table itself.
const RECOMPUTED = `SELECT to_char(date_bin('1 hour', time, TIMESTAMPTZ '2000-01-01 00:00:00+00') AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24') AS bucket,
    cluster, job_id, count(*)::int AS samples, max(greatest(memory_bytes, memory_peak_bytes))::text AS max_memory,
    max(cpu_seconds) AS max_cpu, max(gpu_memory_bytes)::text AS max_gpu, min(time)::text AS first_time, max(time)::text AS last_time
  FROM usage_samples GROUP BY 1, 2, 3 ORDER BY 2, 3, 1`;
const STORED = `SELECT to_char(bucket AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24') AS bucket, cluster, job_id, samples::int AS samples,
    max_memory_bytes::text AS max_memory, max_cpu_seconds AS max_cpu, max_gpu_memory_bytes::text AS max_gpu,
    first_time::text AS first_time, last_time::text AS last_time
  FROM job_usage_hourly ORDER BY 2, 3, 1`;

function sample(job: string, time: string, i: number): UsageSample {
  return {
    cluster: "hpc1",
    jobId: job,
    node: `n${i % 2}`,
    time,
    ...(i % 3 === 0 ? {} : { memory: { currentBytes: 1000 + i, ...(i % 2 ? { peakBytes: 5000 - i } : {}) } }),
    cpu: { usageSeconds: i / 4 },
    ...(i % 4 === 0 ? { gpus: [{ index: 0, utilizationPercent: 50, memoryUsedBytes: 10 * i }] } : {}),
  };
}

describe("hourly per-job summaries (plain PostgreSQL)", () => {
  let fx: StorageFixture;
  beforeAll(async () => {
    fx = await openTestStorage("hourly_summary");
  });
  afterAll(async () => {
    await fx?.dispose();
  });

  const agree = async () => {
    const recomputed = (await fx.storage.pool.query(RECOMPUTED)).rows;
    expect(recomputed.length).toBeGreaterThan(2);
    expect((await fx.storage.pool.query(STORED)).rows).toEqual(recomputed);
  };

  it("matches the samples after whole batches and after batches with duplicates", async () => {
    const times = [
      "2026-12-01T09:59:59.999999Z",
      "2026-12-01T10:00:00Z",
      "2026-12-01T10:30:00.000000001+00:00",
      "2026-12-01T11:15:00+01:00",
      "2026-12-01T11:59:59.5Z",
    ];
    const first = times.flatMap((t, i) => [sample("1", t, i), sample("2", t, i + 7)]);
    expect(await fx.storage.samples.insert(first)).toEqual({ accepted: 10, duplicates: 0 });
    await agree();
    const more = ["2026-12-01T09:00:00Z", "2026-12-01T12:00:00Z"].map((t, i) => sample("1", t, i + 20));
    expect(await fx.storage.samples.insert([...first.slice(0, 3), ...more])).toEqual({
      accepted: 2,
      duplicates: 3,
    });
    await agree();
  });

  it("refuses a batch prepared for TimescaleDB (no hourly parameters) and stores none of it", async () => {
    const rows = async () =>
      (await fx.storage.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM usage_samples")).rows[0].n;
    const before = await rows();
    const batch = ["2026-12-03T08:00:00Z", "2026-12-03T08:10:00Z"].map((t, i) => sample("3", t, i));
    const prepared = prepareSamples(batch, { flavour: "timescale" });
    await expect(fx.storage.samples.insertPrepared(prepared)).rejects.toBeInstanceOf(
      PreparedSamplesMismatchError,
    );
    await expect(fx.storage.samples.insertPrepared(prepared)).rejects.toMatchObject({
      code: "PREPARED_SAMPLES_MISMATCH",
    });
    expect(await rows()).toBe(before);
    // Prepared for its own flavour, the same batch is stored and summarised.
    expect(fx.storage.flavour).toBe("plain");
    expect(
      await fx.storage.samples.insertPrepared(prepareSamples(batch, { flavour: fx.storage.samples.flavour })),
    ).toEqual({
      accepted: 2,
      duplicates: 0,
    });
    await agree();
  });
});
