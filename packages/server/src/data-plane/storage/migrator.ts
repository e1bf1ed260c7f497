import {
  loadMigrations,
  type Migration,
  type StorageFlavour,
  splitSqlStatements,
} from "./migration-files.js";
import type { SqlSession, SqlSessionSource } from "./sql-session.js";

// One fixed key for every Jobsight server on a database: the second server waits here until the
// first has finished migrating, then finds nothing left to do.
const MIGRATION_LOCK_KEY = "7310575185737543729";

/** Options of {@link migrate}. */
export type MigrateOptions = {
  /**
   * Whether to use TimescaleDB: when available (`auto`), never (`off`), or fail without it (`require`).
   * Once chosen for a database, the choice is kept.
   * @default "auto"
   */
  timescale?: "auto" | "off" | "require";
  /** Migrations to apply. @default the files of `src/data-plane/storage/migrations` */
  migrations?: Migration[];
  /** Progress messages. @default no-op */
  log?: (message: string) => void;
};

/** What {@link migrate} did. */
export type MigrationReport = {
  flavour: StorageFlavour;
  /** Versions applied by this call. */
  applied: number[];
  /** Versions found already applied. */
  skipped: number[];
};

/** A migration failed; the database is left at the last migration that succeeded. */
export class MigrationError extends Error {
  readonly code = "MIGRATION_FAILED";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "MigrationError";
  }
}

/**
 * Applies the migrations not yet applied, in version order, each in its own transaction (or
 * statement by statement for `no-transaction` ones, which are written to be re-runnable), under a
 * PostgreSQL advisory lock so that servers starting together apply each migration exactly once.
 *
 * @example
 * ```ts
 * const pool = new pg.Pool({ connectionString });
 * const { flavour, applied } = await migrate(pool, { timescale: "auto" });
 * ```
 */
export async function migrate(
  source: SqlSessionSource,
  options: MigrateOptions = {},
): Promise<MigrationReport> {
  const migrations = options.migrations ?? (await loadMigrations());
  const log = options.log ?? (() => {});
  const session = await source.connect();
  try {
    await session.query("SELECT pg_advisory_lock($1::bigint)", [MIGRATION_LOCK_KEY]);
    try {
      return await applyPending(session, migrations, options.timescale ?? "auto", log);
    } finally {
      await session.query("SELECT pg_advisory_unlock($1::bigint)", [MIGRATION_LOCK_KEY]);
    }
  } finally {
    session.release();
  }
}

/** The flavour recorded by earlier migrations, or `undefined` for a fresh database. */
export async function readStorageFlavour(session: SqlSession): Promise<StorageFlavour | undefined> {
  const exists = await session.query<{ t: string | null }>(
    "SELECT to_regclass('jobsight_migrations')::text AS t",
  );
  if (!exists.rows[0]?.t) return undefined;
  const { rows } = await session.query<{ flavour: StorageFlavour }>(
    "SELECT flavour FROM jobsight_migrations WHERE flavour <> 'common' ORDER BY version LIMIT 1",
  );
  return rows[0]?.flavour;
}

async function applyPending(
  session: SqlSession,
  migrations: Migration[],
  timescale: NonNullable<MigrateOptions["timescale"]>,
  log: (message: string) => void,
): Promise<MigrationReport> {
  await session.query(`CREATE TABLE IF NOT EXISTS jobsight_migrations (
    version integer PRIMARY KEY,
    name text NOT NULL,
    flavour text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  const { rows } = await session.query<{ version: number }>("SELECT version FROM jobsight_migrations");
  const done = new Set(rows.map((r) => Number(r.version)));
  const flavour = (await readStorageFlavour(session)) ?? (await chooseFlavour(session, timescale, log));
  if (flavour === "plain" && timescale === "require") {
    throw new MigrationError("TimescaleDB is required, but this database was set up without it");
  }
  const report: MigrationReport = { flavour, applied: [], skipped: [] };
  for (const migration of migrations) {
    if (done.has(migration.version)) {
      report.skipped.push(migration.version);
      continue;
    }
    const variant = migration.variants.common ? "common" : flavour;
    const script = migration.variants[variant]!;
    log(`applying migration ${script.file}`);
    try {
      if (script.transactional) {
        await session.query("BEGIN");
        try {
          await session.query(script.sql);
          await recordApplied(session, migration, variant);
          await session.query("COMMIT");
        } catch (error) {
          await session.query("ROLLBACK").catch(() => {});
          throw error;
        }
      } else {
        for (const statement of splitSqlStatements(script.sql)) await session.query(statement);
        await recordApplied(session, migration, variant);
      }
    } catch (cause) {
      throw new MigrationError(`Migration ${script.file} failed: ${(cause as Error).message}`, { cause });
    }
    report.applied.push(migration.version);
  }
  return report;
}

function recordApplied(session: SqlSession, migration: Migration, flavour: string) {
  return session.query("INSERT INTO jobsight_migrations (version, name, flavour) VALUES ($1, $2, $3)", [
    migration.version,
    migration.name,
    flavour,
  ]);
}

async function chooseFlavour(
  session: SqlSession,
  timescale: NonNullable<MigrateOptions["timescale"]>,
  log: (message: string) => void,
): Promise<StorageFlavour> {
  if (timescale === "off") return "plain";
  const available = await session.query("SELECT 1 FROM pg_available_extensions WHERE name = 'timescaledb'");
  if (available.rows.length > 0) {
    // Available is not enough: the library must also be preloaded. Creating it tells us.
    try {
      await session.query("CREATE EXTENSION IF NOT EXISTS timescaledb");
      log("storage: TimescaleDB");
      return "timescale";
    } catch (error) {
      if (timescale === "require") {
        throw new MigrationError(
          `TimescaleDB is required but cannot be created: ${(error as Error).message}`,
        );
      }
      log(`storage: plain PostgreSQL (timescaledb present but not loadable: ${(error as Error).message})`);
      return "plain";
    }
  }
  if (timescale === "require")
    throw new MigrationError("TimescaleDB is required but the extension is not installed");
  log("storage: plain PostgreSQL (no timescaledb extension)");
  return "plain";
}
