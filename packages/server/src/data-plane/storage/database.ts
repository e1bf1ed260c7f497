import type pg from "pg";
import { StorageUnavailableError } from "../../errors.js";
import type { StorageFlavour } from "./migration-files.js";
import { isTransientPgError } from "./pg-errors.js";

/** The PostgreSQL pool, as code outside the data plane holds it (only the data plane imports `pg`). */
export type SqlPool = pg.Pool;

/** The pool and the storage flavour every store works with. */
export type Database = {
  readonly pool: pg.Pool;
  readonly flavour: StorageFlavour;
};

/**
 * Runs `work` on one pooled connection, outside any transaction: for one statement that is
 * atomic by itself (a `COPY`), which then needs no `BEGIN` and `COMMIT` round trips. A
 * connection that failed is discarded rather than returned to the pool; transient failures
 * become {@link StorageUnavailableError}.
 *
 * @example
 * ```ts
 * await withConnection(pool, (client) => copyBinary(client, "predictions", columns, rows));
 * ```
 */
export async function withConnection<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await connect(pool);
  let failure: Error | undefined;
  try {
    return await work(client);
  } catch (error) {
    failure = error as Error;
    throw asStorageError(error);
  } finally {
    client.release(failure !== undefined && isTransientPgError(failure) ? failure : undefined);
  }
}

/**
 * Runs `work` in one transaction on one pooled connection: COMMIT when it resolves, ROLLBACK
 * when it throws. A connection that failed is discarded rather than returned to the pool.
 * Transient failures (connection lost, server restarting) become {@link StorageUnavailableError}.
 *
 * @example
 * ```ts
 * const n = await withTransaction(pool, async (client) => (await client.query("SELECT 1")).rowCount);
 * ```
 */
export async function withTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  return withConnection(pool, async (client) => {
    await client.query("BEGIN");
    try {
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    }
  });
}

/** Runs one query on the pool, mapping transient failures to {@link StorageUnavailableError}. */
export async function query<R extends pg.QueryResultRow = Record<string, unknown>>(
  pool: pg.Pool,
  text: string,
  params?: unknown[],
): Promise<pg.QueryResult<R>> {
  try {
    return await pool.query<R>(text, params);
  } catch (error) {
    throw asStorageError(error);
  }
}

async function connect(pool: pg.Pool): Promise<pg.PoolClient> {
  try {
    return await pool.connect();
  } catch (error) {
    throw asStorageError(error);
  }
}

/** Transient database errors as {@link StorageUnavailableError}; anything else unchanged. */
export function asStorageError(error: unknown): unknown {
  if (isTransientPgError(error)) return new StorageUnavailableError("PostgreSQL is unavailable", error);
  return error;
}

/** Numbers from bigint/numeric columns (which node-postgres returns as strings). */
export function toNumber(value: unknown): number | undefined {
  if (value === null || value === undefined) return undefined;
  const n = typeof value === "number" ? value : Number(value);
  return Number.isFinite(n) ? n : undefined;
}
