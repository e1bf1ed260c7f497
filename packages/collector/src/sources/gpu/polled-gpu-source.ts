import { type Logger, silentLogger } from "../../log/logger.js";
import type { GpuUsage } from "../usage-parts.js";
import type { GpuFault } from "./gpu-lost.js";
import type { GpuSource, GpuSourceStatus } from "./gpu-source.js";
import type { ComputeApp, GpuIdentity } from "./nvidia-smi-csv.js";

/** Options every polled GPU source takes (dcgm-exporter, rocm-smi), besides where to read. */
export type PolledGpuSourceOptions = {
  /** How often to read the source. @default 10000 */
  intervalMs?: number;
  /** Time limit of one read. @default 5000 */
  timeoutMs?: number;
  /** How often to try again, quietly, once the source was found unavailable. @default 300000 */
  unavailableRetryMs?: number;
  /** Called once, the first time the source proves unavailable. @default no-op */
  onUnavailable?: (message: string) => void;
  /** Structured log. @default silent */
  logger?: Logger;
};

/** How a source names itself in the log lines the loop writes. */
export type PolledGpuSourceWords = {
  /** Logged (info) when a read works again after failing, e.g. "rocm-smi answers again". */
  answersAgain: string;
  /** Logged (warn) once when a read fails while running, e.g. "rocm-smi failed; trying again". */
  failing: string;
  /** Fields added to the "answers again" line, e.g. `{ command }`. */
  where: Record<string, unknown>;
};

/**
 * The polling loop shared by GPU sources read once per interval (dcgm-exporter, rocm-smi): the
 * first read at `start()`, one read in flight at a time, the next `intervalMs` later (or
 * `unavailableRetryMs` while unavailable). A source that never worked is reported unavailable
 * once (log and `onUnavailable`); a running one that fails keeps its last readings, which age out
 * after three intervals. A subclass only reads: it calls `succeeded()` or `failed()` from `read()`.
 *
 * @example
 * ```ts
 * class FileGpus extends PolledGpuSource<GpuUsage> {
 *   readonly cannotSee = ["processes on each GPU"] as const;
 *   constructor(private readonly path: string, options: PolledGpuSourceOptions = {}) {
 *     super(options, { answersAgain: "file answers again", failing: "file failed", where: { path } });
 *   }
 *   protected async read(): Promise<void> {
 *     try {
 *       this.succeeded(JSON.parse(await readFile(this.path, "utf8")));
 *     } catch (error) {
 *       this.failed(`${this.path}: ${(error as Error).message}`);
 *     }
 *   }
 *   latest(now = Date.now()): GpuUsage[] {
 *     return [...this.fresh(now)];
 *   }
 * }
 * ```
 */
export abstract class PolledGpuSource<T> implements GpuSource {
  abstract readonly cannotSee: readonly string[];
  /** Readings and devices that could not be used, counted for health output. */
  skippedLines = 0;
  status: GpuSourceStatus = "stopped";
  protected readonly intervalMs: number;
  protected readonly timeoutMs: number;
  protected readonly log: Logger;
  /** Every GPU read since start, by whatever key the source identifies a GPU with. */
  protected readonly identities = new Map<string | number, GpuIdentity>();
  // Set by stop(): a read that was out when it came must not bring the source back.
  protected halted = false;
  private readonly unavailableRetryMs: number;
  private readonly onUnavailable: (message: string) => void;
  private readonly words: PolledGpuSourceWords;
  private timer: NodeJS.Timeout | undefined;
  private readings: T[] = [];
  private at = 0;
  private reportedUnavailable = false;
  private failing = false;
  private reading: Promise<void> | undefined;

  constructor(options: PolledGpuSourceOptions, words: PolledGpuSourceWords) {
    this.intervalMs = options.intervalMs ?? 10_000;
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.unavailableRetryMs = options.unavailableRetryMs ?? 300_000;
    this.onUnavailable = options.onUnavailable ?? (() => {});
    this.log = options.logger ?? silentLogger;
    this.words = words;
  }

  /** One read; resolves (never rejects) after calling `succeeded()` or `failed()`, or on stop. */
  protected abstract read(): Promise<void>;

  /** The latest reading of every whole GPU, leaving out stale ones. */
  abstract latest(now?: number): GpuUsage[];

  /** Start polling (idempotent); the first read is at once. */
  start(): void {
    if (this.status !== "stopped" && this.status !== "unavailable") return;
    this.halted = false;
    this.status = "starting";
    this.tick();
  }

  private tick(): void {
    // Skip a tick while the previous read is still out.
    this.reading ??= this.read().finally(() => {
      this.reading = undefined;
      if (this.halted) return;
      this.schedule(this.status === "unavailable" ? this.unavailableRetryMs : this.intervalMs);
    });
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), ms);
    this.timer.unref();
  }

  /** Record a read that worked: the source is running and these are its readings as of now. */
  protected succeeded(readings: T[]): void {
    if (this.failing) this.log.info(this.words.answersAgain, this.words.where);
    this.failing = false;
    this.status = "running";
    this.readings = readings;
    this.at = Date.now();
  }

  /** Record a read that failed: logged once while running, else the source is unavailable (said once). */
  protected failed(message: string): void {
    if (this.halted) return;
    if (this.status === "running") {
      if (!this.failing) this.log.warn(this.words.failing, { reason: message });
      this.failing = true;
      return;
    }
    this.status = "unavailable";
    if (this.reportedUnavailable) return;
    this.reportedUnavailable = true;
    this.log.warn("GPU source unavailable; continuing without GPUs", { source: "gpu", reason: message });
    try {
      this.onUnavailable(message);
    } catch {
      // A faulty callback must not stop the source.
    }
  }

  /** The last readings, or none when they are older than three intervals. */
  protected fresh(now: number): T[] {
    return now - this.at <= 3 * this.intervalMs ? this.readings : [];
  }

  /** Every GPU read since start. */
  known(): GpuIdentity[] {
    return [...this.identities.values()].sort((a, b) => a.index - b.index);
  }

  /** A polled source does not tie processes to GPUs: always empty. */
  async computeApps(): Promise<ComputeApp[]> {
    return [];
  }

  /** A polled source does not report lost GPUs as nvidia-smi does: always empty. */
  takeFaults(): GpuFault[] {
    return [];
  }

  /** Stop polling; waits for a read in flight. */
  async stop(): Promise<void> {
    this.halted = true;
    this.status = "stopped";
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.reading;
  }
}
