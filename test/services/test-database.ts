import pg from "pg";
import { testServices } from "./test-services.js";
import { TestServicesError } from "./test-services-error.js";
import { uniqueName } from "./unique-name.js";

/** A database made for one test (or one suite) on the shared PostgreSQL server. */
export type TestDatabase = {
  /** Connection URL of the new database, for `new pg.Pool({ connectionString: url })`. */
  url: string;
  /** The database name, unique for this run. */
  name: string;
  /** Drops the database, closing any connection still open on it. Safe to call twice. */
  drop: () => Promise<void>;
};

/**
 * Creates a fresh, uniquely named, empty database on the shared server so that no two tests ever
 * see each other's tables.
 *
 * @example
 * const db = await createTestDatabase("ingest");
 * const pool = new pg.Pool({ connectionString: db.url });
 * try { ... } finally { await pool.end(); await db.drop(); }
 */
export async function createTestDatabase(prefix = "jobsight"): Promise<TestDatabase> {
  return createDatabaseOn(testServices().postgres.url, prefix);
}

/**
 * Creates a fresh, uniquely named, empty database on the run's shared TimescaleDB server (Debian's
 * PostgreSQL 15, TimescaleDB 2.28.3 preloaded, extension not yet created in it).
 *
 * @throws {TestServicesError} `TIMESCALE_UNAVAILABLE` with the reason when the global setup could
 *   not start that server: a test that needs TimescaleDB fails, it is never skipped.
 * @example
 * const db = await createTimescaleTestDatabase("compression");
 * const { storage } = await openStorage({ url: db.url, timescale: "require" });
 */
export async function createTimescaleTestDatabase(prefix = "jobsight"): Promise<TestDatabase> {
  const { timescale } = testServices();
  if (!timescale.available) {
    throw new TestServicesError(
      "TIMESCALE_UNAVAILABLE",
      `The TimescaleDB test server did not start, so this test cannot run: ${timescale.reason}`,
    );
  }
  return createDatabaseOn(timescale.url, prefix);
}

async function createDatabaseOn(adminUrl: string, prefix: string): Promise<TestDatabase> {
  const name = uniqueName(prefix, { separator: "_", maxLength: 63 });
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      await withAdmin(adminUrl, (client) =>
        client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`),
      );
    },
  };
}

async function withAdmin<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
