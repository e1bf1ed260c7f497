import { describe, expect, it } from "vitest";
import { loadMigrations, splitSqlStatements } from "./migration-files.js";

describe("migration files", () => {
  it("loads the shipped migrations in order with a variant per flavour where needed", async () => {
    const migrations = await loadMigrations();
    expect(migrations.map((m) => m.version)).toEqual(
      [...migrations.map((m) => m.version)].sort((a, b) => a - b),
    );
    const core = migrations.find((m) => m.version === 1)!;
    expect(Object.keys(core.variants)).toEqual(["common"]);
    const samples = migrations.find((m) => m.version === 2)!;
    expect(samples.variants.plain?.transactional).toBe(true);
    expect(samples.variants.timescale?.transactional).toBe(false);
    // The api_tokens table is the same on both flavours: one common file.
    const apiTokens = migrations.find((m) => m.name === "api-tokens")!;
    expect(apiTokens.version).toBe(6);
    expect(Object.keys(apiTokens.variants)).toEqual(["common"]);
    // So are the rate-limit counts the replicas share.
    const rateLimits = migrations.find((m) => m.name === "rate-limits")!;
    expect(rateLimits.version).toBe(8);
    expect(Object.keys(rateLimits.variants)).toEqual(["common"]);
  });

  it("splits scripts at top-level semicolons only", () => {
    const sql = `-- a comment; with a semicolon
CREATE TABLE a (t text DEFAULT 'x;y');
DO $$ BEGIN PERFORM 1; END $$;
/* block; comment */ SELECT "odd;name" FROM a;
`;
    expect(splitSqlStatements(sql)).toEqual([
      "CREATE TABLE a (t text DEFAULT 'x;y')",
      "DO $$ BEGIN PERFORM 1; END $$",
      '/* block; comment */ SELECT "odd;name" FROM a',
    ]);
  });

  it("splits the TimescaleDB migration into its statements", async () => {
    const migrations = await loadMigrations();
    const statements = splitSqlStatements(migrations.find((m) => m.version === 2)!.variants.timescale!.sql);
    expect(statements[0]).toBe("CREATE EXTENSION IF NOT EXISTS timescaledb");
    expect(statements.some((s) => s.includes("timescaledb.continuous"))).toBe(true);
    expect(statements).toHaveLength(6);
  });
});
