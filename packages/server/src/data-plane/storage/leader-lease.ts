import type { SqlPool } from "./database.js";
import { type DedicatedSession, openDedicatedSession } from "./dedicated-session.js";

// One key per deployment: the replica holding it runs the scheduled work. Distinct from the
// migration, partition, training and alert locks.
export const LEADER_LOCK = 0x6c656164; // "lead"

/** What the lease logs through (pino and fastify loggers fit). */
export type LeaderLeaseLogger = {
  info(details: Record<string, unknown>, message: string): void;
  warn(details: Record<string, unknown>, message: string): void;
};

/** Options of {@link LeaderLease}. */
export type LeaderLeaseOptions = {
  /**
   * ms between two attempts to take the lease while another replica holds it, and between two
   * checks that the session holding it is still alive: the longest a failover waits.
   * @default 5000
   */
  intervalMs?: number;
  /** The advisory lock key. @default LEADER_LOCK */
  key?: number;
  /** Called each time this replica becomes (true) or stops being (false) the leader. @default no-op */
  onChange?: (leader: boolean) => void;
  /** Logger. @default silent */
  log?: LeaderLeaseLogger;
  /** Opens the session that holds the lock. @default a connection with the pool's settings */
  open?: (pool: SqlPool) => Promise<DedicatedSession>;
};

const SILENT: LeaderLeaseLogger = { info: () => {}, warn: () => {} };

/**
 * Which one of several server replicas on one database runs the scheduled work (training,
 * recalibration, the control-plane heartbeat): the one whose dedicated session holds a
 * session-level PostgreSQL advisory lock. The others try again every `intervalMs`. When the
 * leader dies, or its connection does, PostgreSQL ends its session and frees the lock, and the
 * next attempt of another replica takes it over. Never throws into its host.
 *
 * @example
 * ```ts
 * const lease = new LeaderLease(pool, { onChange: (leader) => log.info({ leader }, "leadership") });
 * lease.start();
 * if (lease.isLeader) await train();
 * await lease.stop();
 * ```
 */
export class LeaderLease {
  readonly #pool: SqlPool;
  readonly #o: Required<Omit<LeaderLeaseOptions, "onChange">> & Pick<LeaderLeaseOptions, "onChange">;
  #session: DedicatedSession | undefined;
  #leader = false;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #started = false;
  /** Set by {@link stop}: no session is opened any more. */
  #closed = false;
  #warned = false;

  constructor(pool: SqlPool, options: LeaderLeaseOptions = {}) {
    this.#pool = pool;
    this.#o = {
      intervalMs: options.intervalMs ?? 5000,
      key: options.key ?? LEADER_LOCK,
      log: options.log ?? SILENT,
      open: options.open ?? openDedicatedSession,
      onChange: options.onChange,
    };
  }

  /** Whether this replica holds the lease now. */
  get isLeader(): boolean {
    return this.#leader;
  }

  /** Tries to take the lease at once, then every `intervalMs` until {@link stop}. */
  start(): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    void this.attempt().then(() => this.#schedule());
  }

  /**
   * One round: takes the lease if it is free, or checks that the session holding it is alive.
   * Resolves to whether this replica leads; never rejects.
   */
  async attempt(): Promise<boolean> {
    this.#running ??= this.#round().finally(() => {
      this.#running = undefined;
    });
    await this.#running;
    return this.#leader;
  }

  /** Stops trying and gives the lease up (closing its session frees the lock at once). */
  async stop(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
    const session = this.#session;
    this.#session = undefined;
    this.#set(false);
    await session?.close();
  }

  async #round(): Promise<void> {
    if (this.#closed) return;
    try {
      this.#session ??= await this.#openSession();
      const session = this.#session;
      if (this.#leader) {
        await session.client.query("SELECT 1");
        return;
      }
      const { rows } = await session.client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1) AS ok", [
        this.#o.key,
      ]);
      this.#warned = false;
      if (rows[0]?.ok) this.#set(true);
    } catch (error) {
      // The lock lives and dies with its session: a failed session is closed, which frees it.
      if (!this.#warned || this.#leader) {
        this.#o.log.warn({ err: error }, "leader lease: the database session failed; trying again");
      }
      this.#warned = true;
      await this.#lost();
    }
  }

  async #openSession(): Promise<DedicatedSession> {
    const session = await this.#o.open(this.#pool);
    void session.ended.then((error) => {
      if (this.#session !== session) return;
      if (error) this.#o.log.warn({ err: error }, "leader lease: the database session ended");
      void this.#lost();
    });
    return session;
  }

  async #lost(): Promise<void> {
    const session = this.#session;
    this.#session = undefined;
    this.#set(false);
    await session?.close();
  }

  #set(leader: boolean): void {
    if (leader === this.#leader) return;
    this.#leader = leader;
    this.#o.log.info(
      { leader },
      leader ? "this replica now leads the scheduled work" : "no longer the leader",
    );
    try {
      this.#o.onChange?.(leader);
    } catch (error) {
      this.#o.log.warn({ err: error }, "leader lease: a listener failed");
    }
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      void this.attempt().then(() => this.#schedule());
    }, this.#o.intervalMs);
    this.#timer.unref();
  }
}
