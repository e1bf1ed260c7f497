import type { OutputStream } from "./cli-io.js";

/** Options of {@link ProgressBar}. */
export type ProgressBarOptions = {
  /** The amount of work, in whatever unit is ticked (files, records, batches). */
  total: number;
  /** Where to draw; normally stderr, so stdout stays clean for `--json`. */
  stream: OutputStream;
  /**
   * Shown before the bar.
   * @default ""
   */
  label?: string;
  /**
   * Characters of the bar itself.
   * @default 24
   */
  width?: number;
  /**
   * Least time between two redraws on a terminal.
   * @default 100
   */
  intervalMs?: number;
  /**
   * The clock, for tests.
   * @default Date.now
   */
  now?: () => number;
};

/**
 * A small progress bar for long work. On a terminal it redraws one line in place; elsewhere
 * (CI logs) it prints a line at each quarter, so logs stay short.
 *
 * @example
 * ```ts
 * const bar = new ProgressBar({ total: files.length, stream: process.stderr, label: "predicting" });
 * for (const f of files) { await work(f); bar.tick(); }
 * bar.finish();
 * ```
 */
export class ProgressBar {
  private done = 0;
  private lastDraw = Number.NEGATIVE_INFINITY;
  private lastQuarter = 0;
  private readonly started: number;
  private readonly now: () => number;

  constructor(private readonly options: ProgressBarOptions) {
    this.now = options.now ?? Date.now;
    this.started = this.now();
  }

  /** Add finished work. */
  tick(amount = 1): void {
    this.update(this.done + amount);
  }

  /** Set how much work is finished. */
  update(done: number): void {
    this.done = Math.min(Math.max(0, done), this.options.total);
    const { stream } = this.options;
    if (stream.isTTY) {
      const t = this.now();
      if (t - this.lastDraw >= (this.options.intervalMs ?? 100) || this.done === this.options.total) {
        this.lastDraw = t;
        stream.write(`\r${this.line()}`);
      }
      return;
    }
    const quarter = Math.floor((this.done / Math.max(1, this.options.total)) * 4);
    if (quarter > this.lastQuarter) {
      this.lastQuarter = quarter;
      stream.write(`${this.line()}\n`);
    }
  }

  /** Complete the bar and end its line. */
  finish(): void {
    if (this.done < this.options.total) this.update(this.options.total);
    if (this.options.stream.isTTY) this.options.stream.write("\n");
  }

  /** The bar as text, e.g. `importing [############............] 50/100 50% 3s left`. */
  line(): string {
    const { total, label = "", width = 24 } = this.options;
    const share = total === 0 ? 1 : this.done / total;
    const filled = Math.round(share * width);
    const elapsed = (this.now() - this.started) / 1000;
    const left = share > 0 && share < 1 ? ` ${Math.ceil((elapsed / share) * (1 - share))}s left` : "";
    const bar = `[${"#".repeat(filled)}${".".repeat(width - filled)}]`;
    return `${label ? `${label} ` : ""}${bar} ${this.done}/${total} ${Math.floor(share * 100)}%${left}`;
  }
}
