import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Which storage a migration variant is for. */
export type StorageFlavour = "plain" | "timescale";

/** One versioned migration, possibly with a variant per flavour. */
export type Migration = {
  version: number;
  name: string;
  /** SQL per flavour; `common` applies to both. */
  variants: Partial<Record<StorageFlavour | "common", MigrationScript>>;
};

/** The SQL of one migration file. */
export type MigrationScript = {
  file: string;
  sql: string;
  /** `-- jobsight:no-transaction` files run statement by statement outside a transaction. */
  transactional: boolean;
};

const FILE_NAME = /^(\d{4})-([a-z0-9-]+?)(?:\.(plain|timescale))?\.sql$/;

/**
 * The folder of the migration files: `src/data-plane/storage/migrations` when running from source,
 * `dist/migrations` (copied by tsup) when running the build.
 */
export function defaultMigrationsDir(): string {
  return fileURLToPath(new URL("./migrations/", import.meta.url));
}

/**
 * Reads `NNNN-name[.plain|.timescale].sql` files, ordered by version.
 *
 * @example
 * ```ts
 * const migrations = await loadMigrations();
 * console.log(migrations.map((m) => `${m.version} ${m.name}`));
 * ```
 */
export async function loadMigrations(dir = defaultMigrationsDir()): Promise<Migration[]> {
  const byVersion = new Map<number, Migration>();
  for (const file of (await readdir(dir)).sort()) {
    if (!file.endsWith(".sql")) continue;
    const match = FILE_NAME.exec(file);
    if (!match) throw new Error(`Migration file ${file} is not named NNNN-name[.plain|.timescale].sql`);
    const version = Number(match[1]);
    const name = match[2];
    const flavour = (match[3] as StorageFlavour | undefined) ?? "common";
    const sql = await readFile(join(dir, file), "utf8");
    const migration = byVersion.get(version) ?? { version, name, variants: {} };
    if (migration.name !== name)
      throw new Error(`Migrations ${version} have two names: ${migration.name}, ${name}`);
    migration.variants[flavour] = { file, sql, transactional: !/^--\s*jobsight:no-transaction\b/m.test(sql) };
    byVersion.set(version, migration);
  }
  const migrations = [...byVersion.values()].sort((a, b) => a.version - b.version);
  for (const m of migrations) {
    const { common, plain, timescale } = m.variants;
    if (common ? plain || timescale : !(plain && timescale)) {
      throw new Error(
        `Migration ${m.version} needs either one common file or both .plain and .timescale files`,
      );
    }
  }
  return migrations;
}

/**
 * Splits a SQL script into statements at top-level semicolons, respecting quotes, dollar quotes
 * and comments (for scripts that must run one statement at a time).
 */
export function splitSqlStatements(sql: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (c === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      i = end === -1 ? sql.length : end + 1;
    } else if (c === "/" && sql[i + 1] === "*") {
      const end = sql.indexOf("*/", i + 2);
      i = end === -1 ? sql.length : end + 2;
    } else if (c === "'" || c === '"') {
      const end = sql.indexOf(c, i + 1);
      i = end === -1 ? sql.length : end + 1;
    } else if (c === "$") {
      const tag = /^\$[A-Za-z_]*\$/.exec(sql.slice(i))?.[0];
      if (tag) {
        const end = sql.indexOf(tag, i + tag.length);
        i = end === -1 ? sql.length : end + tag.length;
      } else {
        i++;
      }
    } else if (c === ";") {
      statements.push(sql.slice(start, i));
      start = ++i;
    } else {
      i++;
    }
  }
  statements.push(sql.slice(start));
  return statements.map(stripComments).filter((s) => s !== "");
}

function stripComments(statement: string): string {
  return statement
    .split("\n")
    .filter((line) => !/^\s*--/.test(line))
    .join("\n")
    .trim();
}
