import type { ChildProcess } from "node:child_process";
import { type Logger, silentLogger } from "../../log/logger.js";
import { tiedCommand, trackChild } from "../../util/tied-child.js";
import type { GpuUsage } from "../usage-parts.js";
import { type GpuFault, parseGpuLost } from "./gpu-lost.js";
import type { GpuSource } from "./gpu-source.js";
import {
  COMPUTE_APPS_FIELDS,
  type ComputeApp,
  GPU_QUERY_FIELDS,
  type GpuIdentity,
  gpuIdentity,
  parseComputeApps,
  parseGpuLine,
  shortPciBusId,
} from "./nvidia-smi-csv.js";

/** Options of {@link NvidiaSmi}. */
export type NvidiaSmiOptions = {
  /** The nvidia-smi executable (a path or a name on PATH). @default "nvidia-smi" */
  command?: string;
  /** Sampling interval handed to `-lms`. @default 10000 */
  intervalMs?: number;
  /** First delay before restarting a child that died after working; doubles up to a minute. @default 5000 */
  restartDelayMs?: number;
  /** How often to try again, quietly, once nvidia-smi was found unavailable. @default 300000 */
  unavailableRetryMs?: number;
  /** Time limit of one `--query-compute-apps` run. @default 5000 */
  computeAppsTimeoutMs?: number;
  /** Called once, the first time nvidia-smi proves unavailable (no GPU, no driver, not installed). @default no-op */
  onUnavailable?: (message: string) => void;
  /** Structured log. @default silent */
  logger?: Logger;
};

/** Where the GPU source stands. */
export type NvidiaSmiStatus = "stopped" | "starting" | "running" | "unavailable";

/**
 * GPU readings from ONE long-lived `nvidia-smi --query-gpu=… --format=csv,noheader,nounits -lms <interval>`
 * child: each line it prints updates the latest reading of that GPU, so no process is spawned per
 * sample. `computeApps()` runs `--query-compute-apps` (once per collection round) to tell which
 * process uses which GPU. A GPU nvidia-smi reports lost ("Unable to determine the device handle for
 * GPU …: GPU is lost") becomes a {@link GpuFault}, once until the GPU answers again, collected with
 * `takeFaults()`. When nvidia-smi is missing or cannot talk to a driver, this is said once
 * through `onUnavailable` and the collector carries on without GPUs. Every nvidia-smi runs under a
 * guard that kills it when the collector is gone, even after SIGKILL (see `tiedCommand`).
 *
 * @example
 * ```ts
 * const gpus = new NvidiaSmi({ intervalMs: 10_000, onUnavailable: (m) => log.warn(m) });
 * gpus.start();
 * // every round:
 * const readings = gpus.latest();
 * await gpus.stop();
 * ```
 */
export class NvidiaSmi implements GpuSource {
  /** nvidia-smi sees whole GPUs, their processes and losses; MIG instances are not read. */
  readonly cannotSee = ["MIG instances (read as their whole GPU)"] as const;
  private readonly command: string;
  private readonly intervalMs: number;
  private readonly restartDelayMs: number;
  private readonly unavailableRetryMs: number;
  private readonly computeAppsTimeoutMs: number;
  private readonly onUnavailable: (message: string) => void;
  private readonly log: Logger;
  private child: ChildProcess | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly readings = new Map<number, { gpu: GpuUsage; at: number }>();
  // By PCI address: indices shift when a GPU drops out, and the lost GPU's identity must stay.
  private readonly identities = new Map<string, GpuIdentity>();
  // Faults not yet taken, with the child that reported them (to add its exit status).
  private pendingFaults: { fault: GpuFault; child: number }[] = [];
  // Short PCI addresses reported lost and not read since, so each loss is reported once.
  private readonly lost = new Set<string>();
  private children = 0;
  private reportedUnavailable = false;
  private restartDelay: number;
  private sawData = false;
  private firstOutput = "";
  /** Lines that could not be used (e.g. utilisation `[N/A]`), counted for health output. */
  skippedLines = 0;
  status: NvidiaSmiStatus = "stopped";

  constructor(options: NvidiaSmiOptions = {}) {
    this.command = options.command ?? "nvidia-smi";
    this.intervalMs = options.intervalMs ?? 10_000;
    this.restartDelayMs = options.restartDelayMs ?? 5_000;
    this.restartDelay = this.restartDelayMs;
    this.unavailableRetryMs = options.unavailableRetryMs ?? 300_000;
    this.computeAppsTimeoutMs = options.computeAppsTimeoutMs ?? 5_000;
    this.onUnavailable = options.onUnavailable ?? (() => {});
    this.log = options.logger ?? silentLogger;
  }

  /** Start the long-lived child (idempotent). */
  start(): void {
    if (this.child || this.status === "starting" || this.status === "running") return;
    this.status = "starting";
    this.sawData = false;
    this.firstOutput = "";
    void this.spawnChild();
  }

  private async spawnChild(): Promise<void> {
    // Loaded when GPUs are watched, not at import: most nodes have none and need neither module.
    const [{ spawn }, { createInterface }] = await Promise.all([
      import("node:child_process"),
      import("node:readline"),
    ]);
    if (this.status !== "starting" || this.child) return; // stopped while loading
    const args = [
      `--query-gpu=${GPU_QUERY_FIELDS.join(",")}`,
      "--format=csv,noheader,nounits",
      "-lms",
      String(this.intervalMs),
    ];
    let child: ChildProcess;
    try {
      const tied = tiedCommand(this.command, args);
      child = trackChild(spawn(tied.file, tied.args, { stdio: ["pipe", "pipe", "pipe"] }));
    } catch (error) {
      this.unavailable(`cannot start ${this.command}: ${(error as Error).message}`);
      return;
    }
    this.child = child;
    const id = ++this.children;
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (d: string) => {
      if (this.firstOutput.length < 500) this.firstOutput += d;
    });
    createInterface({ input: child.stderr! }).on("line", (line) => this.noteLost(line, id));
    createInterface({ input: child.stdout! }).on("line", (line) => this.onLine(line, id));
    child.on("error", (error: NodeJS.ErrnoException) => {
      this.child = undefined;
      this.unavailable(
        error.code === "ENOENT"
          ? `${this.command} not found: no NVIDIA GPU tools on this node`
          : `${this.command}: ${error.message}`,
      );
    });
    // "close" (not "exit"): by then every line the child printed has been handled.
    child.on("close", (code, signal) => {
      if (code) for (const p of this.pendingFaults) if (p.child === id) p.fault.exitCode ??= code;
      if (this.child !== child) return;
      this.child = undefined;
      if (this.status === "stopped") return;
      if (!this.sawData) {
        const said = this.firstOutput.trim().split("\n")[0];
        // The guard's shell says 127 for a command it cannot find, where a plain spawn says ENOENT.
        this.unavailable(
          code === 127
            ? `${this.command} not found: no NVIDIA GPU tools on this node`
            : `${this.command} exited (${signal ?? code}) without GPU readings${said ? `: ${said}` : ""}`,
        );
        return;
      }
      this.log.warn("nvidia-smi exited; restarting", { code, signal, inMs: this.restartDelay });
      this.status = "starting";
      this.schedule(this.restartDelay);
      this.restartDelay = Math.min(this.restartDelay * 2, 60_000);
    });
  }

  private onLine(line: string, child: number): void {
    if (line.trim() === "") return;
    const parsed = parseGpuLine(line);
    if ("reason" in parsed) {
      this.noteLost(line, child);
      // Errors ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver") come on stdout.
      if (!this.sawData && this.firstOutput.length < 500) this.firstOutput += `${line}\n`;
      this.skippedLines++;
      return;
    }
    this.sawData = true;
    this.status = "running";
    this.restartDelay = this.restartDelayMs;
    this.readings.set(parsed.index, { gpu: parsed, at: Date.now() });
    const pci = parsed.pciBusId ? shortPciBusId(parsed.pciBusId) : undefined;
    this.identities.set(pci ?? parsed.uuid ?? String(parsed.index), gpuIdentity(parsed, line));
    if (pci) this.lost.delete(pci);
  }

  private noteLost(line: string, child: number): void {
    const found = parseGpuLost(line);
    if (!found) return;
    const pci = shortPciBusId(found.pciBusId) ?? found.pciBusId;
    if (this.lost.has(pci)) return;
    this.lost.add(pci);
    const fault: GpuFault = {
      pciBusId: found.pciBusId,
      message: line.trim().slice(0, 2048),
      reason: found.reason.slice(0, 1024),
      at: Date.now(),
    };
    this.log.warn("nvidia-smi reports a GPU lost", { pciBusId: found.pciBusId, reason: found.reason });
    // Bounded: a node has a handful of GPUs, and each loss is held once until taken.
    if (this.pendingFaults.length < 256) this.pendingFaults.push({ fault, child });
  }

  /** GPUs found lost since the last call, each reported once until it answers again. */
  takeFaults(): GpuFault[] {
    const out = this.pendingFaults.map((p) => p.fault);
    this.pendingFaults = [];
    return out;
  }

  /** Every GPU read since start (index, UUID, PCI address, device minor), lost ones included. */
  known(): GpuIdentity[] {
    return [...this.identities.values()].sort((a, b) => a.index - b.index);
  }

  private unavailable(message: string): void {
    this.status = "unavailable";
    if (!this.reportedUnavailable) {
      this.reportedUnavailable = true;
      this.log.warn("GPU source unavailable; continuing without GPUs", { source: "gpu", reason: message });
      try {
        this.onUnavailable(message);
      } catch {
        // A faulty callback must not stop the source.
      }
    }
    this.schedule(this.unavailableRetryMs);
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.status !== "stopped") {
        this.status = "stopped";
        this.start();
      }
    }, ms);
    this.timer.unref();
  }

  /** The latest reading of every GPU, leaving out readings older than three intervals. */
  latest(now = Date.now()): GpuUsage[] {
    const out: GpuUsage[] = [];
    for (const { gpu, at } of this.readings.values()) if (now - at <= 3 * this.intervalMs) out.push(gpu);
    return out.sort((a, b) => a.index - b.index);
  }

  /** Which processes use which GPU now; empty when nvidia-smi is unavailable or fails. */
  async computeApps(): Promise<ComputeApp[]> {
    if (this.status !== "running") return [];
    const { execFile } = await import("node:child_process");
    const args = [`--query-compute-apps=${COMPUTE_APPS_FIELDS.join(",")}`, "--format=csv,noheader,nounits"];
    const tied = tiedCommand(this.command, args);
    const id = ++this.children;
    return new Promise((resolve) => {
      trackChild(
        execFile(
          tied.file,
          tied.args,
          { timeout: this.computeAppsTimeoutMs, maxBuffer: 1024 * 1024 },
          (error, stdout, stderr) => {
            if (error) {
              this.log.debug("nvidia-smi --query-compute-apps failed", { error });
              for (const line of `${stdout}\n${stderr}`.split("\n")) this.noteLost(line, id);
              const code = (error as { code?: unknown }).code;
              if (typeof code === "number" && code !== 0)
                for (const p of this.pendingFaults) if (p.child === id) p.fault.exitCode ??= code;
              resolve([]);
              return;
            }
            resolve(parseComputeApps(stdout));
          },
        ),
      );
    });
  }

  /** Stop the child and any restart timer. */
  async stop(): Promise<void> {
    this.status = "stopped";
    clearTimeout(this.timer);
    this.timer = undefined;
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        child.kill("SIGKILL");
        resolve();
      }, 2000);
      child.once("exit", () => {
        clearTimeout(t);
        resolve();
      });
      // Either is enough: the guard kills nvidia-smi on SIGTERM and when its stdin closes.
      child.stdin?.destroy();
      child.kill("SIGTERM");
    });
  }
}
