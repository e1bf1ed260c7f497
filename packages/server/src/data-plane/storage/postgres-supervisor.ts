/** What {@link PostgresSupervisor} watches and restarts: an {@link EmbeddedPostgres} in practice. */
export type SupervisedServer = {
  /** Pid of the running server, for the log; undefined when none runs. */
  readonly pid: number | undefined;
  /** Settles when the running server exits; undefined when none runs. */
  exited(): Promise<void> | undefined;
  /** Starts the server again (same data folder and port); rejects when it does not come up. */
  start(): Promise<unknown>;
};

/** Options of {@link PostgresSupervisor}. */
export type PostgresSupervisorOptions = {
  /** The server to watch; it must be running when {@link PostgresSupervisor.start} is called. */
  server: SupervisedServer;
  /** Wait before the first restart after a death (ms). @default 500 */
  initialDelayMs?: number;
  /** Longest wait between restarts (ms); the wait doubles after each failed or short-lived run. @default 30000 */
  maxDelayMs?: number;
  /** A server that ran this long (ms) before dying counts as healthy: the wait starts over. @default 60000 */
  healthyAfterMs?: number;
  /** Deaths, restarts and failed restarts. @default no-op */
  log?: (message: string) => void;
  /** Clock, for tests. @default Date.now */
  now?: () => number;
};

/**
 * Restarts an embedded PostgreSQL that dies unexpectedly (killed, crashed), with back-off: 0.5 s
 * doubling to 30 s, starting over once a run lasted a healthy minute. It never restarts after
 * {@link stop}, and never throws into its host: failures are logged and tried again.
 *
 * @example
 * ```ts
 * const supervisor = new PostgresSupervisor({ server: embedded, log: console.log });
 * supervisor.start();
 * // … on shutdown, before stopping the server itself:
 * await supervisor.stop();
 * await embedded.stop();
 * ```
 */
export class PostgresSupervisor {
  readonly #o: PostgresSupervisorOptions;
  readonly #stopping = new AbortController();
  #loop: Promise<void> | undefined;
  #restarts = 0;

  constructor(options: PostgresSupervisorOptions) {
    this.#o = options;
  }

  /** How many times the server was restarted. */
  get restarts(): number {
    return this.#restarts;
  }

  /** Starts watching (once). */
  start(): void {
    this.#loop ??= this.#run().catch((error) =>
      this.#log(`PostgreSQL supervisor stopped on an unexpected error: ${(error as Error).message}`),
    );
  }

  /** Stops watching; a restart in progress is let finish. Call before a deliberate stop of the server. */
  async stop(): Promise<void> {
    this.#stopping.abort();
    await this.#loop;
  }

  async #run(): Promise<void> {
    const initial = this.#o.initialDelayMs ?? 500;
    const max = this.#o.maxDelayMs ?? 30_000;
    const healthyAfter = this.#o.healthyAfterMs ?? 60_000;
    const now = this.#o.now ?? Date.now;
    let delay = initial;
    while (!this.#stopping.signal.aborted) {
      const pid = this.#o.server.pid;
      const exited = this.#o.server.exited();
      const upSince = now();
      // No running server to watch (a start that failed before the supervisor began): restart it.
      if (exited) await Promise.race([exited, this.#stopped()]);
      if (this.#stopping.signal.aborted) return;
      if (now() - upSince >= healthyAfter) delay = initial;
      this.#log(`embedded PostgreSQL (pid ${pid ?? "none"}) exited unexpectedly; restarting in ${delay} ms`);
      for (;;) {
        await this.#sleep(delay);
        if (this.#stopping.signal.aborted) return;
        delay = Math.min(delay * 2, max);
        try {
          await this.#o.server.start();
          this.#restarts++;
          this.#log(`embedded PostgreSQL restarted (pid ${this.#o.server.pid})`);
          break;
        } catch (error) {
          const reason = (error as Error).message.split("\n")[0];
          this.#log(`restarting embedded PostgreSQL failed: ${reason}; next attempt in ${delay} ms`);
        }
      }
    }
  }

  #stopped(): Promise<void> {
    const signal = this.#stopping.signal;
    return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const signal = this.#stopping.signal;
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
    });
  }

  #log(message: string): void {
    try {
      this.#o.log?.(message);
    } catch {
      // A failing logger must not stop the supervision it reports on.
    }
  }
}
