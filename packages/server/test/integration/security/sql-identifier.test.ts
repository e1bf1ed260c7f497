import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../../../test/services/index.js";
import {
  sqlIdentifier,
  sqlIdentifiers,
  sqlTimestampLiteral,
} from "../../../src/data-plane/storage/sql-identifier.js";

// The identifier escape hatch against the real PostgreSQL lexer: hostile names stay one name.

describe("sqlIdentifier on PostgreSQL", () => {
  let db: TestDatabase;
  let pool: pg.Pool;

  beforeAll(async () => {
    db = await createTestDatabase("sql_identifier");
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
    await pool.query("CREATE TABLE victim (id int)");
  });

  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it("creates, fills and drops tables whose names are injection attempts, and nothing else", async () => {
    const names = [
      'x"; DROP TABLE victim; --',
      "Robert'); DROP TABLE victim;--",
      'a""b',
      "ünïcødé table",
      "$1",
    ];
    const column = 'c"; DELETE FROM victim; --';
    for (const name of names) {
      await pool.query(`CREATE TABLE ${sqlIdentifier(name)} (${sqlIdentifier(column)} text, v text)`);
      await pool.query(
        `INSERT INTO ${sqlIdentifier(name)} (${sqlIdentifiers([column, "v"])}) VALUES ($1, $2)`,
        [name, "x"],
      );
      const { rows } = await pool.query(`SELECT ${sqlIdentifier(column)} AS c FROM ${sqlIdentifier(name)}`);
      expect(rows).toEqual([{ c: name }]);
    }
    const { rows } = await pool.query<{ relname: string }>(
      "SELECT relname FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace ORDER BY relname",
    );
    expect(rows.map((r) => r.relname).sort()).toEqual([...names, "victim"].sort());
    for (const name of names) await pool.query(`DROP TABLE ${sqlIdentifier(name)}`);
    await expect(pool.query("SELECT count(*) FROM victim")).resolves.toBeDefined();
  });

  it("writes partition bounds PostgreSQL reads back as the same instants", async () => {
    await pool.query("CREATE TABLE samples (time timestamptz NOT NULL) PARTITION BY RANGE (time)");
    const from = new Date("2026-03-01T00:00:00Z");
    const to = new Date("2026-03-02T00:00:00Z");
    await pool.query(
      `CREATE TABLE ${sqlIdentifier("samples_20260301")} PARTITION OF samples
       FOR VALUES FROM (${sqlTimestampLiteral(from)}) TO (${sqlTimestampLiteral(to)})`,
    );
    await pool.query("INSERT INTO samples VALUES ($1)", [new Date("2026-03-01T12:00:00Z")]);
    await expect(pool.query("INSERT INTO samples VALUES ($1)", [to])).rejects.toThrow(/no partition/);
  });
});
