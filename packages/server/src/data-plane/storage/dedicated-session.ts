import pg from "pg";
import type { SqlPool } from "./database.js";

/** A PostgreSQL session of its own, outside the pool, and how it ended. */
export type DedicatedSession = {
  readonly client: pg.Client;
  /** Resolves (never rejects) when the connection fails or is closed, with the error if any. */
  readonly ended: Promise<Error | undefined>;
  /** Closes the connection; never throws. */
  close(): Promise<void>;
};

/**
 * Opens one connection with the pool's settings (URL, TLS, timeouts, application name) but not
 * from the pool: a session held for as long as the process runs (an advisory lock, a `LISTEN`)
 * would otherwise take a pool slot away from requests for good.
 *
 * @example
 * ```ts
 * const session = await openDedicatedSession(pool);
 * await session.client.query("LISTEN jobsight_changes");
 * session.ended.then((error) => console.log("lost", error));
 * ```
 */
export async function openDedicatedSession(pool: SqlPool): Promise<DedicatedSession> {
  const client = new pg.Client(pool.options);
  let resolveEnded: (error: Error | undefined) => void = () => {};
  const ended = new Promise<Error | undefined>((resolve) => {
    resolveEnded = resolve;
  });
  // Without a listener, an error on an idle connection would crash the process.
  client.on("error", (error) => resolveEnded(error));
  client.on("end", () => resolveEnded(undefined));
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
  return {
    client,
    ended,
    close: async () => {
      await client.end().catch(() => {});
      resolveEnded(undefined);
    },
  };
}
