/** Prints the demo's steps, one line each with its duration, so a run reads as a checklist. */
export class DemoProgress {
  readonly #out: NodeJS.WritableStream;
  readonly #started = Date.now();
  #n = 0;

  constructor(out: NodeJS.WritableStream = process.stdout) {
    this.#out = out;
  }

  /** Runs one step; its line says what it did (the returned text) and how long it took. */
  async step<T>(title: string, run: () => Promise<T>, describe?: (value: T) => string): Promise<T> {
    this.#n++;
    const t0 = Date.now();
    const value = await run();
    const detail = describe ? `: ${describe(value)}` : "";
    this.line(`[${this.#n}] ${title}${detail} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    return value;
  }

  /** A line under the current step. */
  line(text: string): void {
    this.#out.write(`${text}\n`);
  }

  /** Seconds since the demo started. */
  elapsedSeconds(): number {
    return (Date.now() - this.#started) / 1000;
  }
}
