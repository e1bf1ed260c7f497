import { type Logger, silentLogger } from "../../log/logger.js";
import { tiedCommand, trackChild } from "../../util/tied-child.js";
import type { GpuFault } from "../gpu/gpu-lost.js";
import type { GpuSource, GpuSourceStatus } from "../gpu/gpu-source.js";
import type { ComputeApp, GpuIdentity } from "../gpu/nvidia-smi-csv.js";
import type { GpuUsage } from "../usage-parts.js";
import { parseRocmSmiJson, ROCM_SMI_ARGS } from "./rocm-smi-json.js";

/** Options of {@link RocmSmi}. */
export type RocmSmiOptions = {
  /** The rocm-smi executable (a path or a name on PATH). @default "rocm-smi" */
  command?: string;
  /** How often to run it. @default 10000 */
  intervalMs?: number;
  /** Time limit of one run. @default 5000 */
  timeoutMs?: number;
  /** How often to try again, quietly, once rocm-smi was found unavailable. @default 300000 */
  unavailableRetryMs?: number;
  /** Called once, the first time rocm-smi proves unavailable. @default no-op */
  onUnavailable?: (message: string) => void;
  /** Structured log. @default silent */
  logger?: Logger;
};

/**
 * AMD GPU readings from `rocm-smi … --json`, run once per interval under the same guard as
 * nvidia-smi. Jobs get the GPUs the scheduler allocated (by card number or, for Kubernetes'
 * `amd.com/gpu`, by PCI address); rocm-smi cannot say which processes use which GPU, nor report a
 * GPU lost. A failing run is logged and tried again; it never throws into the collector.
 *
 * @example
 * ```ts
 * const gpus = new RocmSmi({ intervalMs: 10_000, onUnavailable: (m) => log.warn(m) });
 * gpus.start();
 * const readings = gpus.latest();
 * await gpus.stop();
 * ```
 */
export class RocmSmi implements GpuSource {
  readonly cannotSee = ["processes on each GPU", "GPUs lost from the bus", "partitions of a GPU"] as const;
  private readonly command: string;
  private readonly intervalMs: number;
  private readonly timeoutMs: number;
  private readonly unavailableRetryMs: number;
  private readonly onUnavailable: (message: string) => void;
  private readonly log: Logger;
  private timer: NodeJS.Timeout | undefined;
  private readings: GpuUsage[] = [];
  private at = 0;
  private readonly identities = new Map<number, GpuIdentity>();
  private reportedUnavailable = false;
  private failing = false;
  private running: Promise<void> | undefined;
  /** Cards that could not be used, counted for health output. */
  skippedLines = 0;
  status: GpuSourceStatus = "stopped";
  // Set by stop(): a run that was out when it came must not bring the source back.
  private halted = false;

  constructor(options: RocmSmiOptions = {}) {
    this.command = options.command ?? "rocm-smi";
    this.intervalMs = options.intervalMs ?? 10_000;
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.unavailableRetryMs = options.unavailableRetryMs ?? 300_000;
    this.onUnavailable = options.onUnavailable ?? (() => {});
    this.log = options.logger ?? silentLogger;
  }

  /** Start polling (idempotent); the first run is at once. */
  start(): void {
    if (this.status !== "stopped" && this.status !== "unavailable") return;
    this.halted = false;
    this.status = "starting";
    this.tick();
  }

  private tick(): void {
    // Skip a tick while the previous run is still out.
    this.running ??= this.poll().finally(() => {
      this.running = undefined;
      if (this.halted) return;
      clearTimeout(this.timer);
      this.timer = setTimeout(
        () => this.tick(),
        this.status === "unavailable" ? this.unavailableRetryMs : this.intervalMs,
      );
      this.timer.unref();
    });
  }

  /** One run of rocm-smi; resolves (never rejects) once readings are updated or the failure noted. */
  async poll(): Promise<void> {
    const { execFile } = await import("node:child_process");
    const tied = tiedCommand(this.command, [...ROCM_SMI_ARGS]);
    const out = await new Promise<{ stdout: string; error?: string }>((resolve) => {
      trackChild(
        execFile(
          tied.file,
          tied.args,
          { timeout: this.timeoutMs, maxBuffer: 4 * 1024 * 1024 },
          (error, stdout, stderr) => {
            if (!error) return resolve({ stdout });
            const code = (error as { code?: unknown }).code;
            const said = `${stderr}`.trim().split("\n")[0] ?? "";
            resolve({
              stdout,
              error:
                code === 127 || code === "ENOENT"
                  ? `${this.command} not found: no AMD GPU tools on this node`
                  : `${this.command} failed (${code ?? error.message})${said ? `: ${said}` : ""}`,
            });
          },
        ),
      );
    });
    if (this.halted) return;
    if (out.error) return this.failed(out.error);
    let parsed: ReturnType<typeof parseRocmSmiJson>;
    try {
      parsed = parseRocmSmiJson(out.stdout);
    } catch (error) {
      return this.failed(`${this.command} printed no JSON: ${(error as Error).message}`);
    }
    this.skippedLines += parsed.skipped.length;
    if (parsed.gpus.length === 0) return this.failed(`${this.command} reports no GPU with readings`);
    if (this.failing) this.log.info("rocm-smi answers again", { command: this.command });
    this.failing = false;
    this.status = "running";
    this.readings = parsed.gpus.map((g) => g.usage);
    this.at = Date.now();
    for (const g of parsed.gpus) this.identities.set(g.identity.index, g.identity);
  }

  private failed(message: string): void {
    if (this.halted) return;
    if (this.status === "running") {
      if (!this.failing) this.log.warn("rocm-smi failed; trying again", { reason: message });
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

  /** The latest reading of every GPU, none when older than three intervals. */
  latest(now = Date.now()): GpuUsage[] {
    return now - this.at <= 3 * this.intervalMs ? [...this.readings] : [];
  }

  /** Every GPU read since start. */
  known(): GpuIdentity[] {
    return [...this.identities.values()].sort((a, b) => a.index - b.index);
  }

  /** rocm-smi does not tie processes to GPUs here: always empty. */
  async computeApps(): Promise<ComputeApp[]> {
    return [];
  }

  /** rocm-smi does not report lost GPUs: always empty. */
  takeFaults(): GpuFault[] {
    return [];
  }

  /** Stop polling; waits for a run in flight (which the guard ends with the collector). */
  async stop(): Promise<void> {
    this.halted = true;
    this.status = "stopped";
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
