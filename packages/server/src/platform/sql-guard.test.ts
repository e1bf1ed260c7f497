// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the fixtures are TypeScript source held as text
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type SqlGuardFinding, scanSqlSource } from "./test-support/sql-guard-scanner.js";

// SQL only through parameters: every .ts file of the server is scanned for SQL text built from
// values. What may be interpolated into SQL: `$${n}` placeholders, SCREAMING_CASE module
// constants, and identifiers quoted by `sqlIdentifier()` (data-plane/storage/sql-identifier.ts). A query
// builder whose parts are parameterised by construction says so on the line, or the line above:
//   // sql-guard-allow: clauses hold only $n placeholders (see Where.add)

const SRC = fileURLToPath(new URL("..", import.meta.url));

// Findings present when this guard was written (in files owned elsewhere, some written alongside
// it); none of them takes a request value, but each should move to the helpers (or carry a
// sql-guard-allow reason), and its entry here be deleted. New findings are never added here.
const KNOWN_FINDINGS: { file: string; expression: string; fix: string }[] = [
  { file: "data-plane/copy/copy-rows.ts", expression: "table", fix: "sqlIdentifier(table)" },
  { file: "data-plane/copy/copy-rows.ts", expression: 'columns.join(", ")', fix: "sqlIdentifiers(columns)" },
  ...["column", "alias"].flatMap((expression) => [
    {
      file: "data-plane/queries/history-summaries.ts",
      expression,
      fix: "sqlIdentifier(column) / sqlIdentifier(`${alias}_n`)",
    },
  ]),
  {
    file: "data-plane/queries/history-summaries.ts",
    expression: 'where.join(" AND ")',
    fix: "sql-guard-allow: literal clauses with $n",
  },
  {
    file: "data-plane/queries/job-queries.ts",
    expression: 'this.clauses.join(" AND ")',
    fix: "sql-guard-allow: $n clauses",
  },
  {
    file: "data-plane/queries/job-queries.ts",
    expression: "where",
    fix: "sql-guard-allow: Where holds $n clauses",
  },
  { file: "data-plane/queries/sample-partitions.ts", expression: "name", fix: "sqlIdentifier(name)" },
  {
    file: "data-plane/queries/sample-partitions.ts",
    expression: "from",
    fix: "sqlTimestampLiteral(new Date(day))",
  },
  {
    file: "data-plane/queries/sample-partitions.ts",
    expression: "to",
    fix: "sqlTimestampLiteral(new Date(day + DAY_MS))",
  },
  { file: "data-plane/queries/waste-query.ts", expression: "column", fix: "sqlIdentifier(column)" },
  {
    file: "data-plane/stores/stored-jobs.ts",
    expression: "where",
    fix: "sql-guard-allow: literal clauses with $n",
  },
];

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : tsFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

const isKnown = (f: SqlGuardFinding) =>
  KNOWN_FINDINGS.some((k) => k.file === f.file && k.expression === f.expression);
const describeFinding = (f: SqlGuardFinding) =>
  `packages/server/src/${f.file}:${f.line}  \${${f.expression}}  in  ${f.source}`;

describe("SQL only through parameters", () => {
  const findings = tsFiles(SRC).flatMap((path) =>
    scanSqlSource(relative(SRC, path).split("\\").join("/"), readFileSync(path, "utf8")),
  );

  it("builds no SQL from values anywhere in packages/server/src", () => {
    const fresh = findings.filter((f) => !isKnown(f));
    expect(fresh.map(describeFinding), "SQL built from values: use $n parameters or sqlIdentifier()").toEqual(
      [],
    );
  });

  it("keeps the list of known findings current (delete entries once fixed)", () => {
    const stale = KNOWN_FINDINGS.filter(
      (k) => !findings.some((f) => f.file === k.file && f.expression === k.expression),
    );
    expect(stale).toEqual([]);
  });

  it("scans the whole tree", () => {
    expect(tsFiles(SRC).length).toBeGreaterThan(50);
    expect(tsFiles(SRC)).toContainEqual(expect.stringMatching(/data-plane[/\\]queries[/\\]job-queries\.ts$/));
  });
});

// The data plane is the only room that speaks SQL (docs/architecture.md): a statement anywhere
// else is a store method that has not been written yet.
const STATEMENT =
  /["'`]\s*(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM|CREATE (TABLE|INDEX)|ALTER TABLE)\b/;

describe("SQL only in the data plane", () => {
  it("holds no SQL statement in a source file outside data-plane/", () => {
    const outside = tsFiles(SRC)
      .map((path) => relative(SRC, path).split("\\").join("/"))
      .filter((file) => !file.startsWith("data-plane/") && !/\.test\.ts$|test-support\//.test(file))
      .filter((file) => STATEMENT.test(readFileSync(join(SRC, file), "utf8")));
    expect(outside).toEqual([]);
  });

  it("recognises a statement in a string", () => {
    expect(STATEMENT.test('q("SELECT 1")')).toBe(true);
    expect(STATEMENT.test("q(`\n  INSERT INTO jobs (a) VALUES ($1)`)")).toBe(true);
    expect(STATEMENT.test("// select the rows")).toBe(false);
  });
});

describe("scanSqlSource", () => {
  const scan = (code: string) => scanSqlSource("x.ts", code).map((f) => f.expression);

  it("flags values interpolated into SQL, naming the line", () => {
    const found = scanSqlSource(
      "routes/jobs.ts",
      ["const a = 1;", "await pool.query(`SELECT * FROM jobs WHERE user_name = '${user}'`);"].join("\n"),
    );
    expect(found).toEqual([
      {
        file: "routes/jobs.ts",
        line: 2,
        expression: "user",
        source: "await pool.query(`SELECT * FROM jobs WHERE user_name = '${user}'`);",
      },
    ]);
    expect(scan("q(`DELETE FROM ${table} WHERE id = $1`, [id])")).toEqual(["table"]);
    expect(scan("const sql = `UPDATE jobs SET state = ${req.body.state}`;")).toEqual(["req.body.state"]);
    expect(scan("q(`SELECT * FROM jobs LIMIT ${String(limit)}`)")).toEqual(["String(limit)"]);
  });

  it("flags SQL concatenated with values", () => {
    expect(scan(`q("SELECT * FROM jobs WHERE id = '" + id + "'")`)).toEqual(["id"]);
    expect(scan(`sql += " AND cluster = " + cluster;`)).toEqual(["cluster"]);
    expect(scan(`q("SELECT " + (a + b) + " FROM t")`)).toEqual(["a", "b"]);
  });

  it("flags values smuggled through conditionals, nested templates and escapeLiteral", () => {
    expect(scan("q(`SELECT * FROM t ORDER BY x ${desc ? dir : 'ASC'}`)")).toEqual(["desc ? dir : 'ASC'"]);
    expect(scan("q(`SELECT * FROM t WHERE ${`a = ${v}`}`)")).toEqual(["`a = ${v}`"]);
    expect(scan("q(`SELECT * FROM t WHERE a = ${client.escapeLiteral(v)}`)")).toEqual([
      "client.escapeLiteral(v)",
    ]);
  });

  it("flags SCREAMING_CASE names that are not module constants", () => {
    expect(scan("function f(TABLE: string) { return q(`SELECT * FROM ${TABLE}`); }")).toEqual(["TABLE"]);
    expect(scan("let TABLE = 'jobs'; q(`SELECT * FROM ${TABLE}`);")).toEqual(["TABLE"]);
  });

  it("accepts parameterised queries", () => {
    expect(scan(`q("SELECT * FROM jobs WHERE id = $1 AND cluster = $2", [id, cluster]);`)).toEqual([]);
    expect(scan("q(`SELECT * FROM jobs\n WHERE id = $1`, [id]);")).toEqual([]);
    expect(scan("q(`SELECT * FROM jobs WHERE id = $${n} LIMIT $${params.length + 1}`, params);")).toEqual([]);
    expect(scan("clauses.push(`(a, b) < ($${n - 1}, $${n})`);")).toEqual([]);
  });

  it("accepts module constants, constant-derived lists and the identifier helpers", () => {
    const code = [
      'import { JOB_COLUMNS } from "./job-columns.js";',
      "const STAGING = 'staging_jobs';",
      "const COLS = ['a', 'b'];",
      "const DIST = (c: string) => c;",
      "q(`INSERT INTO jobs (${JOB_COLUMNS.join(', ')}) SELECT ${COLS.join(', ')} FROM ${STAGING}`);",
      "q(`UPDATE jobs SET ${COLS.map((c) => `${c} = excluded.${c}`).join(', ')} WHERE id = $1`, [id]);",
      "q(`SELECT ${DIST('peak', 'mem')} FROM jobs`);",
      "q(`DROP TABLE IF EXISTS ${sqlIdentifier(name)}`);",
      "q(`COPY ${sqlQualifiedIdentifier('s', t)} (${sqlIdentifiers(cols)}) FROM STDIN`);",
      "q(`CREATE TABLE p PARTITION OF s FOR VALUES FROM (${sqlTimestampLiteral(a)}) TO (${sqlTimestampLiteral(b)})`);",
      "q(`CREATE DATABASE ${client.escapeIdentifier(db)}`);",
      "q(`SELECT * FROM t ORDER BY x ${desc ? 'DESC' : 'ASC'}`);",
    ].join("\n");
    expect(scan(code)).toEqual([]);
  });

  it("follows local constants to fixed text, and no further", () => {
    const code = [
      "function page(order: string) {",
      "  const column = order === 'submitted' ? 'submitted_at' : 'ended_at';",
      "  const table = `jobs`;",
      "  return q(`SELECT ${column} FROM ${table} ORDER BY ${column}`);",
      "}",
    ].join("\n");
    expect(scan(code)).toEqual([]);
    expect(scan("function f(o: string) { const column = o; return q(`SELECT ${column} FROM t`); }")).toEqual([
      "column",
    ]);
    expect(
      scan("function f() { let column = 'a'; column = x; return q(`SELECT ${column} FROM t`); }"),
    ).toEqual(["column"]);
    expect(
      scan("const column = 'a'; function f(column: string) { return q(`SELECT ${column} FROM t`); }"),
    ).toEqual(["column"]);
    expect(scan("function f(rows: string[]) { for (const r of rows) q(`SELECT ${r} FROM t`); }")).toEqual([
      "r",
    ]);
    expect(scan("function f(o: { c: string }) { const { c } = o; return q(`SELECT ${c} FROM t`); }")).toEqual(
      ["c"],
    );
  });

  it("accepts a line that states why with sql-guard-allow", () => {
    expect(
      scan("// sql-guard-allow: Where holds only $n clauses\nq(`SELECT * FROM jobs ${where}`);"),
    ).toEqual([]);
    expect(scan("q(`SELECT * FROM jobs ${where}`); // sql-guard-allow: $n clauses")).toEqual([]);
    expect(scan("q(`SELECT * FROM jobs ${where}`); // sql-guard-allow:")).toEqual(["where"]);
  });

  it("leaves prose and lower-case text alone", () => {
    expect(scan("throw new Error(`Job ${id} failed on ${node}`);")).toEqual([]);
    expect(scan("log(`select from ${n} nodes where ${x}`);")).toEqual([]);
    expect(scan("const k = `${RATE_LIMITED}:${id}`;")).toEqual([]);
  });
});
