import pg from "pg";
import { testServices } from "./test-services.js";
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
  const { postgres } = testServices();
  const name = uniqueName(prefix, { separator: "_", maxLength: 63 });
  await withAdmin(postgres.url, (client) => client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`));
  const url = new URL(postgres.url);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      await withAdmin(postgres.url, (client) =>
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
