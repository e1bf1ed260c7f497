import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTimescaleTestDatabase, type TestDatabase } from "../../../../../test/services/index.js";
import { loadMigrations } from "../../../src/data-plane/storage/migration-files.js";
import { MigrationError, migrate } from "../../../src/data-plane/storage/migrator.js";
import { openStorage } from "../../../src/data-plane/storage/open-storage.js";

// What TimescaleDB's catalogue says about Jobsight's objects: compared before and after a second
// migration, which must leave it as it was.
async function catalogue(pool: pg.Pool) {
  const q = async (sql: string) => (await pool.query(sql)).rows;
  return {
    hypertables: await q(
      `SELECT hypertable_name, compression_enabled, num_dimensions FROM timescaledb_information.hypertables
       WHERE hypertable_schema = 'public' ORDER BY 1`,
    ),
    dimensions: await q(
      `SELECT column_name, time_interval::text FROM timescaledb_information.dimensions
       WHERE hypertable_name = 'usage_samples'`,
    ),
    compression: await q(
      `SELECT attname, segmentby_column_index, orderby_column_index FROM timescaledb_information.compression_settings
       WHERE hypertable_name = 'usage_samples' ORDER BY attname`,
    ),
    aggregates: await q(
      "SELECT view_name, materialized_only FROM timescaledb_information.continuous_aggregates ORDER BY 1",
    ),
    jobs: await q(
      `SELECT proc_name, schedule_interval::text, config - 'hypertable_id' - 'mat_hypertable_id' AS config
       FROM timescaledb_information.jobs
       WHERE hypertable_name IN ('usage_samples', 'job_usage_hourly') OR proc_name = 'policy_refresh_continuous_aggregate'
       ORDER BY proc_name`,
    ),
    tables: await q("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"),
  };
}

describe("migrations on a real TimescaleDB server", () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let versions: number[];

  beforeAll(async () => {
    versions = (await loadMigrations()).map((m) => m.version);
    db = await createTimescaleTestDatabase("ts_migrations");
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it("lays out the TimescaleDB flavour on a fresh database: every migration once, policies from the config", async () => {
    const opened = await openStorage({
      url: db.url,
      poolSize: 2,
      timescale: "auto",
      policies: { retentionDays: 30, compressAfterDays: 2 },
    });
    try {
      expect(opened.migrations).toEqual({ flavour: "timescale", applied: versions, skipped: [] });
      expect(opened.storage.flavour).toBe("timescale");
    } finally {
      await opened.close();
    }
    const { rows: extension } = await pool.query(
      "SELECT extversion FROM pg_extension WHERE extname = 'timescaledb'",
    );
    expect(extension).toEqual([{ extversion: "2.28.3" }]);
    // TimescaleDB's own telemetry must never leave a Jobsight site.
    const { rows: telemetry } = await pool.query(
      "SELECT current_setting('timescaledb.telemetry_level') AS level",
    );
    expect(telemetry).toEqual([{ level: "off" }]);
    const { rows: recorded } = await pool.query<{ version: number; flavour: string }>(
      "SELECT version, flavour FROM jobsight_migrations ORDER BY version",
    );
    expect(recorded.map((r) => r.version)).toEqual(versions);
    expect(recorded.find((r) => r.version === 2)?.flavour).toBe("timescale");

    const state = await catalogue(pool);
    expect(state.hypertables).toContainEqual({
      hypertable_name: "usage_samples",
      compression_enabled: true,
      num_dimensions: 1,
    });
    expect(state.dimensions).toEqual([{ column_name: "time", time_interval: "1 day" }]);
    expect(state.compression).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ attname: "cluster", segmentby_column_index: 1 }),
        expect.objectContaining({ attname: "job_id", segmentby_column_index: 2 }),
        expect.objectContaining({ attname: "time", orderby_column_index: 3 }),
      ]),
    );
    expect(state.aggregates).toEqual([{ view_name: "job_usage_hourly", materialized_only: false }]);
    expect(state.jobs).toEqual([
      {
        proc_name: "policy_compression",
        schedule_interval: "12:00:00",
        config: { compress_after: "2 days" },
      },
      {
        proc_name: "policy_refresh_continuous_aggregate",
        schedule_interval: "00:30:00",
        config: { end_offset: "01:00:00", start_offset: "3 days" },
      },
      { proc_name: "policy_retention", schedule_interval: "1 day", config: { drop_after: "30 days" } },
    ]);
    // The plain flavour's partitions never appear next to the hypertable.
    expect(state.tables.map((t) => t.tablename)).not.toContain("usage_samples_20261201");
  });

  it("applies nothing and changes nothing when migrated again, by a second server or by hand", async () => {
    const before = await catalogue(pool);
    const again = await openStorage({
      url: db.url,
      poolSize: 2,
      timescale: "require",
      policies: { retentionDays: 30, compressAfterDays: 2 },
    });
    await again.close();
    const direct = await migrate(pool, { timescale: "auto" });
    expect(direct).toEqual({ flavour: "timescale", applied: [], skipped: versions });
    expect(await catalogue(pool)).toEqual(before);
  });

  it("re-runs the TimescaleDB samples migration after a crash between its statements and its record", async () => {
    // 0002 runs outside a transaction (continuous aggregates demand it): a crash can leave its
    // objects without its row in jobsight_migrations. The next start must finish, not fail.
    const before = await catalogue(pool);
    await pool.query("DELETE FROM jobsight_migrations WHERE version = 2");
    const report = await migrate(pool, { timescale: "require" });
    expect(report.applied).toEqual([2]);
    expect(await catalogue(pool)).toEqual(before);
  });

  it("keeps a database set up without TimescaleDB plain, and refuses it when TimescaleDB is required", async () => {
    const plainDb = await createTimescaleTestDatabase("ts_kept_plain");
    try {
      const plain = await openStorage({ url: plainDb.url, poolSize: 2, timescale: "off" });
      expect(plain.migrations?.flavour).toBe("plain");
      await plain.close();
      const plainPool = new pg.Pool({ connectionString: plainDb.url, max: 1 });
      try {
        // The extension is available on this server, yet the recorded choice wins.
        expect(await migrate(plainPool, { timescale: "auto" })).toMatchObject({
          flavour: "plain",
          applied: [],
        });
        await expect(migrate(plainPool, { timescale: "require" })).rejects.toBeInstanceOf(MigrationError);
        const { rows } = await plainPool.query("SELECT 1 FROM pg_extension WHERE extname = 'timescaledb'");
        expect(rows).toEqual([]);
      } finally {
        await plainPool.end();
      }
    } finally {
      await plainDb.drop();
    }
  });
});
