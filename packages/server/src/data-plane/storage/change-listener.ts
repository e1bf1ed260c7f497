import type { SqlPool } from "./database.js";
import { type DedicatedSession, openDedicatedSession } from "./dedicated-session.js";

/** The channel migration 0013's triggers notify on: the payload names the table that changed. */
export const CHANGES_CHANNEL = "jobsight_changes";

/**
 * What changed: a table of the shared state (`models`, `policies`), or `*` when the listener was
 * reconnected and may have missed notifications.
 */
export type SharedChange = "models" | "policies" | "*";

/** What the listener logs through (pino and fastify loggers fit). */
export type ChangeListenerLogger = { warn(details: Record<string, unknown>, message: string): void };

/** Options of {@link ChangeListener}. */
export type ChangeListenerOptions = {
  /** ms between two checks that the listening session is alive, and before reconnecting. @default 10000 */
  intervalMs?: number;
  /** Logger. @default silent */
  log?: ChangeListenerLogger;
  /** Opens the listening session. @default a connection with the pool's settings */
  open?: (pool: SqlPool) => Promise<DedicatedSession>;
};

const KNOWN = new Set<string>(["models", "policies"]);

/**
 * Tells this server replica at once when another one (or a CLI) changed the state every replica
 * serves from, so a promoted model or a new policy reaches all of them within a second: the
 * `jobsight_changes` notifications PostgreSQL sends when such a transaction commits. Listeners
 * are called with what changed; a listener's failure is its own (caught). Never throws into its
 * host; after a lost connection it reconnects and reports `*`.
 *
 * @example
 * ```ts
 * const changes = new ChangeListener(pool);
 * changes.on((what) => void service.reloadShared(what));
 * changes.start();
 * await changes.stop();
 * ```
 */
export class ChangeListener {
  readonly #pool: SqlPool;
  readonly #intervalMs: number;
  readonly #log: ChangeListenerLogger | undefined;
  readonly #open: (pool: SqlPool) => Promise<DedicatedSession>;
  readonly #listeners = new Set<(change: SharedChange) => void>();
  #session: DedicatedSession | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #started = false;
  /** Set by {@link stop}: no session is opened any more. */
  #closed = false;
  #everOpened = false;
  #warned = false;

  constructor(pool: SqlPool, options: ChangeListenerOptions = {}) {
    this.#pool = pool;
    this.#intervalMs = options.intervalMs ?? 10_000;
    this.#log = options.log;
    this.#open = options.open ?? openDedicatedSession;
  }

  /** Calls `listener` with every change from now on; returns a function that stops it. */
  on(listener: (change: SharedChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Whether the listening session is open. */
  get listening(): boolean {
    return this.#session !== undefined;
  }

  /** Listens at once, then checks the session every `intervalMs` until {@link stop}. */
  start(): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    void this.check().then(() => this.#schedule());
  }

  /** Opens (or checks) the listening session now; never rejects. */
  async check(): Promise<void> {
    this.#running ??= this.#round().finally(() => {
      this.#running = undefined;
    });
    await this.#running;
  }

  /** Stops listening. */
  async stop(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
    const session = this.#session;
    this.#session = undefined;
    await session?.close();
  }

  async #round(): Promise<void> {
    let opened: DedicatedSession | undefined;
    try {
      if (this.#session) {
        await this.#session.client.query("SELECT 1");
        return;
      }
      if (this.#closed) return;
      opened = await this.#open(this.#pool);
      const session = opened;
      session.client.on("notification", (message) => {
        if (message.channel !== CHANGES_CHANNEL) return;
        this.#emit(KNOWN.has(message.payload ?? "") ? (message.payload as SharedChange) : "*");
      });
      await session.client.query(`LISTEN ${CHANGES_CHANNEL}`);
      this.#session = session;
      void session.ended.then(() => {
        if (this.#session === session) this.#session = undefined;
      });
      this.#warned = false;
      // Whatever changed while no session listened is read again.
      if (this.#everOpened) this.#emit("*");
      this.#everOpened = true;
    } catch (error) {
      if (!this.#warned)
        this.#log?.warn({ err: error }, "change listener: the database session failed; retrying");
      this.#warned = true;
      const session = this.#session ?? opened;
      this.#session = undefined;
      await session?.close();
    }
  }

  #emit(change: SharedChange): void {
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch (error) {
        this.#log?.warn({ err: error }, "change listener: a listener failed");
      }
    }
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      void this.check().then(() => this.#schedule());
    }, this.#intervalMs);
    this.#timer.unref();
  }
}
