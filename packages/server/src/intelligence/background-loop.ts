/** Options of {@link BackgroundLoop}. */
export type BackgroundLoopOptions = {
  /** Milliseconds between two runs (from the end of one to the start of the next). */
  intervalMs: number;
  /** The work of one tick. */
  run: () => Promise<void>;
  /** Called with every failure; the loop goes on. @default no-op */
  onError?: (error: unknown, failures: number) => void;
};

/**
 * Runs `run` every `intervalMs` in the background without ever throwing into its host: a
 * failure is caught, counted and reported, and the next tick runs as usual; a tick never starts
 * while the previous one is still running. Timers do not keep the process alive.
 *
 * @example
 * ```ts
 * const loop = new BackgroundLoop({ intervalMs: 86_400_000, run: () => service.train() });
 * loop.start();
 * await loop.stop();
 * ```
 */
export class BackgroundLoop {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = true;
  /** Failed ticks so far. */
  failures = 0;
  /** Ticks run so far (failed or not). */
  runs = 0;

  constructor(private readonly options: BackgroundLoopOptions) {}

  /** Starts ticking (the first tick after one interval). */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#schedule();
  }

  /** Runs a tick now unless one is running; resolves when it is done (never rejects). */
  async runNow(): Promise<void> {
    if (this.#running) return this.#running;
    const tick = this.options
      .run()
      .catch((error) => {
        this.failures++;
        this.options.onError?.(error, this.failures);
      })
      .finally(() => {
        this.runs++;
        this.#running = undefined;
      });
    this.#running = tick;
    return tick;
  }

  /** Stops the timer and waits for a tick in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      void this.runNow().then(() => this.#schedule());
    }, this.options.intervalMs);
    this.#timer.unref();
  }
}
