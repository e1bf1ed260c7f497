import { query, type SqlPool, toNumber } from "../storage/database.js";
import { RateLimitCounts, type RateLimitDecision, type WindowCount } from "./rate-limit-counts.js";

/** The part of a pino/fastify logger the store writes to. */
export type RateLimitStoreLog = {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
};

/** Options of {@link RateLimitStore}. */
export type RateLimitStoreOptions = {
  /**
   * The database the server replicas share (migrated: table `rate_limit_counts`); absent: the
   * limits hold per process. @default undefined
   */
  pool?: SqlPool;
  /**
   * ms between two syncs with PostgreSQL (store this process's new hits, read every replica's
   * totals); a sync still running when the next is due makes that one skipped. 0: only when
   * {@link RateLimitStore.sync} is called. @default 500
   */
  syncIntervalMs?: number;
  /** ms between two deletions of rows of windows past (by whichever replica gets there). @default 60000 */
  cleanupIntervalMs?: number;
  /** Most keys held in memory. @default 100000 */
  maxKeys?: number;
  /** Clock in ms, for tests. @default Date.now */
  now?: () => number;
  /** Where failed syncs are reported (the first of a run, and the recovery). @default silent */
  log?: RateLimitStoreLog;
};

/** The answer `@fastify/rate-limit` expects from a store: hits so far and ms until they reset. */
export type RateLimitStoreResult = { current: number; ttl: number };

/** How the store's background syncs went. */
export type RateLimitSyncStats = {
  /** Syncs that stored and read the counts. */
  syncs: number;
  /** Syncs that failed (PostgreSQL unreachable…); the limits held on local counts meanwhile. */
  failures: number;
  /** Syncs skipped because the previous one was still running. */
  skipped: number;
  /** Keys held in memory. */
  keys: number;
};

// One statement, so the hits stored and the totals read go together or not at all: the upsert's
// RETURNING gives the new totals of the rows it touched (the outer SELECT cannot see them), the
// SELECT those of the other keys of this process. Rows are upserted in key order so two replicas
// never lock the same rows in opposite orders.
const SYNC_SQL = `
WITH added AS (
  INSERT INTO rate_limit_counts AS c (key, window_start, expires_at, hits)
  SELECT u.key, u.window_start, u.expires_at, u.hits
  FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[], $4::bigint[]) AS u(key, window_start, expires_at, hits)
  ORDER BY u.key, u.window_start
  ON CONFLICT (key, window_start) DO UPDATE SET hits = c.hits + EXCLUDED.hits
  RETURNING c.key, c.window_start, c.hits
)
SELECT key, window_start, hits FROM added
UNION ALL
SELECT c.key, c.window_start, c.hits FROM rate_limit_counts c
WHERE c.key = ANY($5::text[]) AND c.expires_at > $6::timestamptz
  AND NOT EXISTS (SELECT 1 FROM added a WHERE a.key = c.key AND a.window_start = c.window_start)`;

const CLEANUP_SQL = "DELETE FROM rate_limit_counts WHERE expires_at <= $1::timestamptz";

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Request counts for `@fastify/rate-limit` (its custom-store interface: `incr`, `read`, `child`),
 * shared by the server replicas on one PostgreSQL database, and for the OTLP receivers
 * ({@link take}). A key's budget is `max` requests refilled at `max / timeWindow` (see
 * `RateLimitCounts`): with `max = burst` and `timeWindow = burst / requestsPerSecond` seconds it
 * is the token bucket of the `rateLimit` options.
 *
 * No request waits for PostgreSQL: each process counts in memory and, every `syncIntervalMs` in
 * the background, adds its new hits to the per-(key, window) rows of `rate_limit_counts` and reads
 * back every replica's totals for the keys it holds, so a key's requests on all replicas together
 * are refused once they pass the budget (within one sync of lag). A sync that fails is logged and
 * counted, and its hits are sent with the next one; meanwhile each process limits on what it knows
 * (per-process limits, never an error). Rows of windows past are deleted in the background.
 *
 * @example
 * ```ts
 * const store = new RateLimitStore({ pool, log: app.log });
 * await app.register(fastifyRateLimit, { store: store.asPluginStore(), max: 200, timeWindow: 4000 });
 * store.take("otlp:t:9f86…", 200, 4000); // 0, or seconds to wait
 * await store.close();
 * ```
 */
export class RateLimitStore {
  readonly #counts: RateLimitCounts;
  readonly #pool: SqlPool | undefined;
  readonly #intervalMs: number;
  readonly #cleanupMs: number;
  readonly #now: () => number;
  readonly #log: RateLimitStoreLog | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<boolean> | undefined;
  #lastCleanup: number;
  #failing = 0;
  #closed = false;
  readonly #stats = { syncs: 0, failures: 0, skipped: 0 };

  constructor(options: RateLimitStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#counts = new RateLimitCounts({ now: this.#now, maxKeys: options.maxKeys });
    this.#pool = options.pool;
    this.#intervalMs = options.syncIntervalMs ?? 500;
    this.#cleanupMs = options.cleanupIntervalMs ?? 60_000;
    this.#log = options.log;
    this.#lastCleanup = this.#now();
  }

  /**
   * `@fastify/rate-limit`: counts one request of `key` against `max` per `timeWindow` ms. Refused
   * requests count nothing and answer `current = max + 1` with `ttl` the ms until one request's
   * worth of budget is back; admitted ones `ttl` the ms until the whole budget is.
   */
  incr(
    key: string,
    callback: (error: Error | null, result?: RateLimitStoreResult) => void,
    timeWindow: number,
    max: number,
  ): void {
    callback(null, this.#result(this.#hit(key, max, timeWindow), max));
  }

  /** `@fastify/rate-limit`'s `{ increment: false }`: what {@link incr} would answer, counting nothing. */
  read(
    key: string,
    callback: (error: Error | null, result?: RateLimitStoreResult) => void,
    timeWindow: number,
    max: number,
  ): void {
    callback(null, this.#result(this.#counts.peek(key, max, timeWindow), max));
  }

  /** `@fastify/rate-limit`: the store of a route with options of its own. One budget per key: this store. */
  child(_routeOptions: unknown): RateLimitStore {
    return this;
  }

  /**
   * This store as `@fastify/rate-limit`'s `store` option, which takes a class and makes its own
   * instances: every one it makes is this store.
   */
  asPluginStore(): new (options: unknown) => RateLimitStore {
    const store = this;
    // A constructor that returns an object makes `new` return that object.
    return function SharedRateLimitStore() {
      return store;
    } as unknown as new (
      options: unknown,
    ) => RateLimitStore;
  }

  /** Counts one request of `key` against `max` per `windowMs`: 0 if admitted, else the seconds to wait. */
  take(key: string, max: number, windowMs: number): number {
    const d = this.#hit(key, max, windowMs);
    return d.admitted ? 0 : d.retryAfterMs / 1000;
  }

  /** How the background syncs went. */
  get stats(): RateLimitSyncStats {
    return { ...this.#stats, keys: this.#counts.size };
  }

  /**
   * One sync now (the background loop's step): stores this process's new hits and reads the
   * totals of its keys. Resolves `true` when it reached PostgreSQL, `false` otherwise (no pool, or
   * a failure, logged and counted); never rejects. Joins a sync already under way.
   */
  sync(): Promise<boolean> {
    if (!this.#pool) return Promise.resolve(false);
    this.#running ??= this.#syncOnce(this.#pool).finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** Stops the background syncs after a last one (best effort: its failure is only counted). */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
    await this.sync();
  }

  #hit(key: string, max: number, windowMs: number) {
    const decision = this.#counts.hit(key, max, windowMs);
    // Started by the first request, so a server whose limits are never used keeps no timer.
    if (!this.#timer && this.#pool && this.#intervalMs > 0 && !this.#closed) {
      this.#timer = setInterval(() => this.#tick(), this.#intervalMs);
      this.#timer.unref();
    }
    return decision;
  }

  #result(d: RateLimitDecision, max: number): RateLimitStoreResult {
    return d.admitted
      ? { current: Math.ceil(d.spent), ttl: Math.ceil(d.refillMs) }
      : { current: max + 1, ttl: Math.ceil(d.retryAfterMs) };
  }

  #tick(): void {
    if (this.#running) {
      this.#stats.skipped++;
      return;
    }
    void this.sync();
  }

  async #syncOnce(pool: SqlPool): Promise<boolean> {
    this.#counts.sweep();
    const now = this.#now();
    const keys = this.#counts.keys();
    const unsent = this.#counts.takeUnsent();
    try {
      if (keys.length > 0) {
        const { rows } = await query<{ key: string; window_start: Date; hits: string }>(pool, SYNC_SQL, [
          unsent.map((u) => u.key),
          unsent.map((u) => iso(u.windowStart)),
          unsent.map((u) => iso(u.expiresAt)),
          unsent.map((u) => u.hits),
          keys,
          iso(now),
        ]);
        this.#counts.applyTotals(
          rows.map(
            (r): WindowCount => ({
              key: r.key,
              windowStart: r.window_start.getTime(),
              hits: toNumber(r.hits) ?? 0,
            }),
          ),
        );
      }
      if (now - this.#lastCleanup >= this.#cleanupMs) {
        await query(pool, CLEANUP_SQL, [iso(now)]);
        this.#lastCleanup = now;
      }
    } catch (error) {
      this.#counts.sendFailed();
      this.#stats.failures++;
      if (this.#failing++ === 0) {
        this.#log?.warn({ err: error }, "rate-limit counts not synced with PostgreSQL; limiting per process");
      }
      return false;
    }
    this.#stats.syncs++;
    if (this.#failing > 0) {
      this.#log?.info({ failedSyncs: this.#failing }, "rate-limit counts synced with PostgreSQL again");
      this.#failing = 0;
    }
    return true;
  }
}
