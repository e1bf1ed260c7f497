/** A query result, the part of node-postgres's `QueryResult` the data plane reads. */
export type SqlResult<R> = { rows: R[]; rowCount: number | null };

/**
 * One database session: a `pg.PoolClient`, a `pg.Client`, or an adapter over another driver
 * (the TimescaleDB test runs the migrations through PGlite). A call without parameters may hold
 * several statements.
 */
export type SqlSession = {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<SqlResult<R>>;
};

/** Where sessions come from: a `pg.Pool`, or one session shared by everything (PGlite). */
export type SqlSessionSource = {
  connect(): Promise<SqlSession & { release(error?: Error | boolean): void }>;
};
