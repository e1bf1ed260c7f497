/** A step of the demo's shutdown: closes something the demo started. */
export type DemoCleanup = () => Promise<unknown>;

/** Options of {@link DemoShutdown}. */
export type DemoShutdownOptions = {
  /** Where the shutdown says what it does. */
  line: (text: string) => void;
  /** Longest wait for one cleanup (ms); the next one runs after it regardless. @default 30000 */
  cleanupTimeoutMs?: number;
};

/**
 * Stops the demo at any step. Ctrl-C (SIGINT) or SIGTERM runs every cleanup registered so far,
 * last registered first, and exits 0: the stop was asked for, so neither the demo nor pnpm reports
 * a failure. Signals that arrive while it stops (pnpm passes the terminal's Ctrl-C on a second
 * time) change nothing; each cleanup is bounded so the demo always ends.
 *
 * @example
 * ```ts
 * const shutdown = new DemoShutdown({ line: (t) => console.log(t) });
 * const server = await startDemoServer(options);
 * shutdown.add(() => server.close());
 * await shutdown.signalled(); // the shutdown runs the cleanups and exits 0
 * ```
 */
export class DemoShutdown {
  readonly #o: DemoShutdownOptions;
  readonly #cleanups: DemoCleanup[] = [];
  readonly #signalled: Promise<NodeJS.Signals>;
  #stopping: Promise<void> | undefined;

  constructor(options: DemoShutdownOptions) {
    this.#o = options;
    this.#signalled = new Promise((resolve) => {
      const onSignal = (signal: NodeJS.Signals) => {
        resolve(signal);
        if (this.#stopping) return;
        this.#o.line(`\nStopping (${signal === "SIGINT" ? "Ctrl-C" : signal})…`);
        void this.stop("Stopped.").then(() => process.exit(0));
      };
      process.on("SIGINT", onSignal);
      process.on("SIGTERM", onSignal);
    });
  }

  /** Whether the demo is stopping (a failure of a step then is the stop's doing, not a fault). */
  get stopping(): boolean {
    return this.#stopping !== undefined;
  }

  /** Registers what closes something just started; it runs before everything registered earlier. */
  add(cleanup: DemoCleanup): void {
    this.#cleanups.push(cleanup);
  }

  /** Settles when Ctrl-C or SIGTERM arrives. */
  signalled(): Promise<NodeJS.Signals> {
    return this.#signalled;
  }

  /** Runs the cleanups once (later calls wait for the same run), then prints `done`. */
  stop(done: string): Promise<void> {
    this.#stopping ??= (async () => {
      const timeoutMs = this.#o.cleanupTimeoutMs ?? 30_000;
      for (const cleanup of this.#cleanups.splice(0).reverse()) {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<void>((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
        });
        await Promise.race([cleanup().catch(() => {}), timeout]);
        clearTimeout(timer);
      }
      this.#o.line(done);
    })();
    return this.#stopping;
  }
}
