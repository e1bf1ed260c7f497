import type { UsageSample } from "@jobsight/schemas";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DAY_MS,
  dayStart,
  jobSamples,
  openTimescaleStorage,
  policyJob,
  runPolicy,
  sampleChunks,
  type TimescaleFixture,
} from "./timescale-fixture.js";

const HOUR_MS = 3_600_000;

/** Everything the data plane reads about a job, to compare before and after a policy ran. */
async function readJob(fx: TimescaleFixture, jobId: string) {
  const { samples } = fx.storage;
  return {
    raw: await samples.series("hpc1", jobId),
    minute: await samples.series("hpc1", jobId, { stepSeconds: 60 }),
    hour: await samples.series("hpc1", jobId, { stepSeconds: 3600 }),
    summary: await samples.jobSummary("hpc1", jobId),
  };
}

async function insertAll(fx: TimescaleFixture, samples: UsageSample[]): Promise<void> {
  for (let i = 0; i < samples.length; i += 2_000) {
    const result = await fx.storage.samples.insert(samples.slice(i, i + 2_000));
    expect(result.duplicates).toBe(0);
  }
}

async function compressedBytes(pool: pg.Pool): Promise<{ before: number; after: number }> {
  const { rows } = await pool.query<{ before: string; after: string }>(
    `SELECT sum(before_compression_total_bytes) AS before, sum(after_compression_total_bytes) AS after
     FROM chunk_compression_stats('usage_samples') WHERE compression_status = 'Compressed'`,
  );
  return { before: Number(rows[0].before), after: Number(rows[0].after) };
}

/** Compressed chunks holding rows written after their compression, which the policy compresses again. */
async function partialChunks(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM timescaledb_information.chunks
     WHERE hypertable_name = 'usage_samples'
       AND _timescaledb_functions.chunk_status_text(format('%I.%I', chunk_schema, chunk_name)::regclass) @> ARRAY['PARTIAL']`,
  );
  return rows[0].n;
}

describe("compression policy on a real TimescaleDB server", () => {
  let fx: TimescaleFixture;
  // An old job on two nodes, one crossing midnight, and a recent one the policy must leave alone.
  const jobs = {
    old: [
      ...jobSamples("hpc1", "c-old", "n1", dayStart(12) + 10 * HOUR_MS, 720),
      ...jobSamples("hpc1", "c-old", "n2", dayStart(12) + 10 * HOUR_MS, 720),
    ],
    midnight: jobSamples("hpc1", "c-midnight", "n3", dayStart(10) - HOUR_MS, 720),
    recent: jobSamples("hpc1", "c-recent", "n1", dayStart(3) + 8 * HOUR_MS, 360),
  };
  const ids = ["c-old", "c-midnight", "c-recent"];

  beforeAll(async () => {
    fx = await openTimescaleStorage("ts_compression", { retentionDays: 90, compressAfterDays: 7 });
    await insertAll(fx, [...jobs.old, ...jobs.midnight, ...jobs.recent]);
  });
  afterAll(async () => {
    await fx?.dispose();
  });

  it("compresses only the chunks older than compressAfterDays, and every read answers as before", async () => {
    const before = await Promise.all(ids.map((id) => readJob(fx, id)));
    expect(before[0].raw.samples).toHaveLength(1_440);
    expect((await sampleChunks(fx.storage.pool)).some((c) => c.compressed)).toBe(false);

    await runPolicy(fx.storage.pool, "policy_compression");

    const chunks = await sampleChunks(fx.storage.pool);
    const cutoff = Date.now() - 7 * DAY_MS;
    expect(chunks).toHaveLength(4);
    for (const chunk of chunks) {
      expect({ start: chunk.start, compressed: chunk.compressed }).toEqual({
        start: chunk.start,
        compressed: Date.parse(chunk.start) + DAY_MS <= cutoff,
      });
    }
    expect(chunks.filter((c) => c.compressed)).toHaveLength(3);
    expect(await Promise.all(ids.map((id) => readJob(fx, id)))).toEqual(before);

    const bytes = await compressedBytes(fx.storage.pool);
    console.log(
      `compression: ${bytes.before} → ${bytes.after} bytes (×${(bytes.before / bytes.after).toFixed(1)}) for ${
        jobs.old.length + jobs.midnight.length
      } samples`,
    );
    expect(bytes.before / bytes.after).toBeGreaterThan(3);
  });

  it("counts a resend into a compressed chunk as duplicates, stores a late sample there, and compresses it again", async () => {
    const before = await readJob(fx, "c-old");
    expect(await fx.storage.samples.insert(jobs.old.slice(0, 500))).toEqual({ accepted: 0, duplicates: 500 });
    expect(await readJob(fx, "c-old")).toEqual(before);

    const late = jobSamples("hpc1", "c-old", "n9", dayStart(12) + 11 * HOUR_MS, 3);
    expect(await fx.storage.samples.insert(late)).toEqual({ accepted: 3, duplicates: 0 });
    const withLate = await readJob(fx, "c-old");
    expect(withLate.raw.samples).toHaveLength(1_443);
    expect(withLate.summary.samples).toBe(1_443);

    expect(await partialChunks(fx.storage.pool)).toBe(1);
    await runPolicy(fx.storage.pool, "policy_compression");
    expect(await partialChunks(fx.storage.pool)).toBe(0);
    expect((await sampleChunks(fx.storage.pool)).filter((c) => c.compressed)).toHaveLength(3);
    expect(await readJob(fx, "c-old")).toEqual(withLate);
  });
});

describe("retention policy on a real TimescaleDB server", () => {
  let fx: TimescaleFixture;

  beforeAll(async () => {
    fx = await openTimescaleStorage("ts_retention", { retentionDays: 30, compressAfterDays: 7 });
    await insertAll(fx, [
      ...jobSamples("hpc1", "r-45", "n1", dayStart(45) + 12 * HOUR_MS, 100),
      ...jobSamples("hpc1", "r-31", "n1", dayStart(31) + 12 * HOUR_MS, 100),
      ...jobSamples("hpc1", "r-29", "n1", dayStart(29) + 12 * HOUR_MS, 100),
      ...jobSamples("hpc1", "r-2", "n1", dayStart(2) + 12 * HOUR_MS, 100),
    ]);
  });
  afterAll(async () => {
    await fx?.dispose();
  });

  it("drops the chunks past retentionDays only, compressed or not, and keeps their hourly summaries", async () => {
    // Summaries materialised while the samples existed survive them, as the plain flavour's table does.
    await fx.storage.pool.query("CALL refresh_continuous_aggregate('job_usage_hourly', NULL, NULL)");
    await runPolicy(fx.storage.pool, "policy_compression");
    const kept = { "r-29": await readJob(fx, "r-29"), "r-2": await readJob(fx, "r-2") };
    const oldSummary = await fx.storage.samples.jobSummary("hpc1", "r-45");
    expect(oldSummary.samples).toBe(100);

    await runPolicy(fx.storage.pool, "policy_retention");

    const chunks = await sampleChunks(fx.storage.pool);
    expect(chunks.map((c) => c.start)).toEqual([
      new Date(dayStart(29)).toISOString(),
      new Date(dayStart(2)).toISOString(),
    ]);
    for (const jobId of ["r-45", "r-31"]) {
      expect((await fx.storage.samples.series("hpc1", jobId)).samples).toEqual([]);
    }
    expect({ "r-29": await readJob(fx, "r-29"), "r-2": await readJob(fx, "r-2") }).toEqual(kept);
    await runPolicy(fx.storage.pool, "policy_refresh_continuous_aggregate");
    expect(await fx.storage.samples.jobSummary("hpc1", "r-45")).toEqual(oldSummary);
  });
});

describe("TimescaleDB's own scheduler", () => {
  let fx: TimescaleFixture;

  beforeAll(async () => {
    fx = await openTimescaleStorage("ts_scheduler", { retentionDays: 30, compressAfterDays: 7 });
    await insertAll(fx, [
      ...jobSamples("hpc1", "s-40", "n1", dayStart(40) + 12 * HOUR_MS, 50),
      ...jobSamples("hpc1", "s-10", "n1", dayStart(10) + 12 * HOUR_MS, 50),
    ]);
  });
  afterAll(async () => {
    await fx?.dispose();
  });

  it("runs the retention and compression policies Jobsight installed, by itself", async () => {
    const pool = fx.storage.pool;
    // One at a time: run together, they contend for the old chunk and one of them retries minutes later.
    const runSoon = async (proc: "policy_compression" | "policy_retention") =>
      pool.query("SELECT alter_job($1, scheduled => true, next_start => now())", [
        await policyJob(pool, proc),
      ]);
    const waitFor = async (done: (chunks: Awaited<ReturnType<typeof sampleChunks>>) => boolean) => {
      const deadline = Date.now() + 60_000;
      let chunks = await sampleChunks(pool);
      while (!done(chunks) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        chunks = await sampleChunks(pool);
      }
      return chunks;
    };
    const tenDaysAgo = new Date(dayStart(10)).toISOString();

    await runSoon("policy_retention");
    expect((await waitFor((c) => c.length === 1)).map((c) => c.start)).toEqual([tenDaysAgo]);
    await runSoon("policy_compression");
    expect(await waitFor((c) => c.every((chunk) => chunk.compressed))).toEqual([
      { name: expect.any(String), start: tenDaysAgo, compressed: true },
    ]);
    expect((await fx.storage.samples.series("hpc1", "s-10")).samples).toHaveLength(50);
    // How the scheduler recorded the runs (see docs/timescaledb.md for PostgreSQL 15.20's "failed").
    const { rows } = await pool.query(
      `SELECT j.proc_name, s.last_run_status, s.total_runs, e.err_message
       FROM timescaledb_information.jobs j JOIN timescaledb_information.job_stats s USING (job_id)
       LEFT JOIN LATERAL (SELECT err_message FROM timescaledb_information.job_errors e
                          WHERE e.job_id = j.job_id ORDER BY start_time DESC LIMIT 1) e ON true
       WHERE j.proc_name IN ('policy_compression', 'policy_retention')`,
    );
    console.log("scheduler runs:", JSON.stringify(rows));
  });
});
