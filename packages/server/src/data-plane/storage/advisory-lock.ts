import type { SqlPool } from "./database.js";

// Sample retention and compression policies: one replica applies them at a time.
export const SAMPLE_POLICIES_LOCK = 0x706f6c73; // "pols"

/** What {@link withTryAdvisoryLock} returns: the work's result, or that another session holds the lock. */
export type LockedResult<T> = { locked: true; value: T } | { locked: false };

/**
 * Runs `work` only if this session gets the PostgreSQL advisory lock `key` at once (another
 * server doing the same work makes it return `{ locked: false }` without waiting). The lock is
 * held on one pooled connection for the whole run and released after it, also when it throws.
 *
 * @example
 * ```ts
 * const r = await withTryAdvisoryLock(pool, TRAINING_LOCK, () => train());
 * if (!r.locked) console.log("another server is training");
 * ```
 */
export async function withTryAdvisoryLock<T>(
  pool: SqlPool,
  key: number,
  work: () => Promise<T>,
): Promise<LockedResult<T>> {
  const lock = await pool.connect();
  try {
    const { rows } = await lock.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1) AS ok", [key]);
    if (!rows[0].ok) return { locked: false };
    try {
      return { locked: true, value: await work() };
    } finally {
      await lock.query("SELECT pg_advisory_unlock($1)", [key]);
    }
  } finally {
    lock.release();
  }
}
