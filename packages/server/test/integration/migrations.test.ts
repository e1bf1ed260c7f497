import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../test/services/index.js";
import { loadMigrations } from "../../src/data-plane/storage/migration-files.js";
import { migrate } from "../../src/data-plane/storage/migrator.js";

describe("migrations", () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0).reverse()) await fn();
  });

  async function database(): Promise<{ db: TestDatabase; pool: pg.Pool }> {
    const db = await createTestDatabase("migrate");
    const pool = new pg.Pool({ connectionString: db.url, max: 4 });
    cleanup.push(
      () => db.drop(),
      () => pool.end(),
    );
    return { db, pool };
  }

  it("apply once, then find nothing to do", async () => {
    const { pool } = await database();
    const all = (await loadMigrations()).map((m) => m.version);
    const first = await migrate(pool);
    expect(first).toEqual({ flavour: "plain", applied: all, skipped: [] });
    const second = await migrate(pool);
    expect(second).toEqual({ flavour: "plain", applied: [], skipped: all });
    const { rows } = await pool.query("SELECT version, flavour FROM jobsight_migrations ORDER BY version");
    expect(rows).toEqual([
      { version: 1, flavour: "common" },
      { version: 2, flavour: "plain" },
      { version: 3, flavour: "common" },
      { version: 4, flavour: "common" },
      { version: 5, flavour: "common" },
      { version: 6, flavour: "common" },
      { version: 7, flavour: "common" },
      { version: 8, flavour: "common" },
      { version: 9, flavour: "common" },
      { version: 10, flavour: "common" },
      { version: 11, flavour: "common" },
      { version: 12, flavour: "common" },
      { version: 13, flavour: "common" },
      { version: 14, flavour: "common" },
      { version: 15, flavour: "common" },
    ]);
    // The OTLP receiver finds a container's job by the ids its record lists (GIN on the list).
    const byContainer = await pool.query(
      "SELECT indexdef FROM pg_indexes WHERE tablename = 'jobs' AND indexname = 'jobs_by_container'",
    );
    expect(byContainer.rows).toEqual([
      {
        indexdef:
          "CREATE INDEX jobs_by_container ON public.jobs USING gin (((record -> 'containerIds'::text)))",
      },
    ]);
    // Rate-limit counts live two windows and skip the WAL.
    const unlogged = await pool.query(
      "SELECT relpersistence FROM pg_class WHERE relname = 'rate_limit_counts'",
    );
    expect(unlogged.rows).toEqual([{ relpersistence: "u" }]);
    // The prediction log keeps its documents as the text served (text: not re-checked as json, not re-encoded as jsonb).
    const types = await pool.query(
      `SELECT column_name, data_type FROM information_schema.columns
       WHERE table_name = 'predictions' AND column_name IN ('spec', 'resources', 'recommendations')
       ORDER BY column_name`,
    );
    expect(types.rows).toEqual([
      { column_name: "recommendations", data_type: "text" },
      { column_name: "resources", data_type: "text" },
      { column_name: "spec", data_type: "text" },
    ]);
    // Appended in time order: a block range index, not a B-tree kept up on every prediction.
    // No B-tree by link key either: predictions are paired with jobs in memory.
    const indexes = await pool.query(
      "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'predictions' ORDER BY indexname",
    );
    expect(indexes.rows.map((r) => r.indexname)).toEqual([
      "predictions_by_created",
      "predictions_idempotent",
      "predictions_pkey",
    ]);
    expect(indexes.rows[0].indexdef).toBe(
      "CREATE INDEX predictions_by_created ON public.predictions USING brin (created_at)",
    );
    // Rows of a few kilobytes are stored as written, not compressed on the way in.
    const options = await pool.query("SELECT reloptions FROM pg_class WHERE relname = 'predictions'");
    expect(options.rows).toEqual([{ reloptions: ["toast_tuple_target=8160"] }]);
  });

  it("create the api_tokens table the token store reads and writes, from SQL alone", async () => {
    const { pool } = await database();
    await migrate(pool);
    const columns = await pool.query(
      `SELECT column_name, data_type, is_nullable, column_default FROM information_schema.columns
       WHERE table_name = 'api_tokens' ORDER BY column_name`,
    );
    const text = (nullable: boolean, byDefault: string | null = null) => ({
      data_type: "text",
      is_nullable: nullable ? "YES" : "NO",
      column_default: byDefault,
    });
    expect(Object.fromEntries(columns.rows.map(({ column_name, ...rest }) => [column_name, rest]))).toEqual({
      cluster: text(true),
      created_at: { data_type: "timestamp with time zone", is_nullable: "NO", column_default: "now()" },
      id: text(false),
      label: text(true),
      prefix: text(true),
      revoked_at: { data_type: "timestamp with time zone", is_nullable: "YES", column_default: null },
      role: text(false),
      token_sha256: text(false),
      user_name: text(false, "''::text"),
    });
    const keys = await pool.query(
      `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'api_tokens' ORDER BY indexname`,
    );
    expect(keys.rows).toEqual([
      {
        indexname: "api_tokens_id_key",
        indexdef: "CREATE UNIQUE INDEX api_tokens_id_key ON public.api_tokens USING btree (id)",
      },
      {
        indexname: "api_tokens_pkey",
        indexdef: "CREATE UNIQUE INDEX api_tokens_pkey ON public.api_tokens USING btree (token_sha256)",
      },
    ]);
  });

  it("are applied exactly once by servers starting at the same time", async () => {
    const { db } = await database();
    // Separate pools: as two server processes would have.
    const pools = [0, 1, 2].map(() => new pg.Pool({ connectionString: db.url, max: 2 }));
    cleanup.push(async () => {
      await Promise.all(pools.map((p) => p.end()));
    });
    const reports = await Promise.all(pools.map((p) => migrate(p)));
    const applied = reports.flatMap((r) => r.applied).sort();
    expect(applied).toEqual((await loadMigrations()).map((m) => m.version).sort());
    const { rows } = await pools[0].query("SELECT count(*)::int AS n FROM jobsight_migrations");
    expect(rows[0].n).toBe(applied.length);
  });

  it("create the partitioned sample table and the hourly summary on plain PostgreSQL", async () => {
    const { pool } = await database();
    await migrate(pool, { timescale: "auto" });
    const { rows } = await pool.query(
      "SELECT c.relname, c.relkind FROM pg_class c WHERE c.relname IN ('usage_samples', 'job_usage_hourly') ORDER BY 1",
    );
    expect(rows).toEqual([
      { relname: "job_usage_hourly", relkind: "r" },
      { relname: "usage_samples", relkind: "p" },
    ]);
  });

  it("refuse to go on without TimescaleDB when it is required", async () => {
    const { pool } = await database();
    await expect(migrate(pool, { timescale: "require" })).rejects.toMatchObject({ code: "MIGRATION_FAILED" });
    // Nothing half-done: a later plain migration works.
    expect((await migrate(pool, { timescale: "off" })).flavour).toBe("plain");
  });
});
