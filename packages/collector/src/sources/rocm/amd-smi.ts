import { PolledGpuSource, type PolledGpuSourceOptions } from "../gpu/polled-gpu-source.js";
import type { GpuUsage } from "../usage-parts.js";
import {
  AMD_SMI_LIST_ARGS,
  AMD_SMI_METRIC_ARGS,
  type AmdSmiDevice,
  type AmdSmiReading,
  parseAmdSmiList,
  parseAmdSmiMetric,
} from "./amd-smi-json.js";
import { runSmiCommand } from "./run-smi-command.js";

/** Options of {@link AmdSmi}: the command, and the polling loop's (a run per `intervalMs`). */
export type AmdSmiOptions = Omit<PolledGpuSourceOptions, "timeoutMs"> & {
  /** The amd-smi executable (a path or a name on PATH). @default "amd-smi" */
  command?: string;
  /** Time limit of one amd-smi run; it is a Python program that starts its library on every run. @default 15000 */
  timeoutMs?: number;
  /** Least time between two `amd-smi list` runs while a GPU amd-smi reads is missing from the list. @default 60000 */
  listRetryMs?: number;
};

/**
 * AMD GPU readings from `amd-smi metric … --json` (ROCm 6 and later, which replaces rocm-smi), run
 * once per interval under the same guard as nvidia-smi; `amd-smi list --json` names the GPUs (PCI
 * address, UUID, partition) at the first run and again when a GPU it did not list appears. Each
 * partition of a split GPU is a device of its own, with its own utilisation and VRAM but no power
 * figure (amd-smi gives only the package's). Jobs get the GPUs the scheduler allocated (by index or,
 * for Kubernetes' `amd.com/gpu`, by PCI address); amd-smi is not asked which processes use which
 * GPU, nor can it report a GPU lost. A failing run is logged and tried again; it never throws into
 * the collector.
 *
 * @example
 * ```ts
 * const gpus = new AmdSmi({ intervalMs: 10_000, onUnavailable: (m) => log.warn(m) });
 * gpus.start();
 * const readings = gpus.latest();
 * await gpus.stop();
 * ```
 */
export class AmdSmi extends PolledGpuSource<GpuUsage> {
  readonly cannotSee = [
    "processes on each GPU",
    "GPUs lost from the bus",
    "power of a GPU partition",
    "the pod a GPU partition is given to",
  ] as const;
  private readonly command: string;
  private readonly listRetryMs: number;
  private devices = new Map<number, AmdSmiDevice>();
  private listedAt = Number.NEGATIVE_INFINITY;
  private listFailing = false;

  constructor(options: AmdSmiOptions = {}) {
    const command = options.command ?? "amd-smi";
    super(
      { ...options, timeoutMs: options.timeoutMs ?? 15_000 },
      { answersAgain: "amd-smi answers again", failing: "amd-smi failed; trying again", where: { command } },
    );
    this.command = command;
    this.listRetryMs = options.listRetryMs ?? 60_000;
  }

  /** The loop's read is one run of amd-smi (two when its GPUs must be listed). */
  protected read(): Promise<void> {
    return this.poll();
  }

  /** One run of `amd-smi metric`; resolves (never rejects) once readings are updated or the failure noted. */
  async poll(): Promise<void> {
    const out = await runSmiCommand(this.command, AMD_SMI_METRIC_ARGS, this.timeoutMs);
    if (this.halted) return;
    if (out.error) return this.failed(out.error);
    let parsed: AmdSmiReading;
    try {
      parsed = parseAmdSmiMetric(out.stdout, this.devices);
      if (parsed.indices.some((i) => !this.devices.has(i)) && (await this.list())) {
        if (this.halted) return;
        parsed = parseAmdSmiMetric(out.stdout, this.devices);
      }
    } catch (error) {
      return this.failed(`${this.command} printed no JSON: ${(error as Error).message}`);
    }
    if (this.halted) return;
    this.skippedLines += parsed.skipped.length;
    if (parsed.indices.length === 0) return this.failed(`${this.command} metric lists no GPU`);
    if (parsed.gpus.length === 0)
      return this.failed(`${this.command} reports no GPU with readings (${parsed.skipped[0]})`);
    this.succeeded(parsed.gpus.map((g) => g.usage));
    for (const g of parsed.gpus) this.identities.set(g.identity.index, g.identity);
  }

  /** Read `amd-smi list`, at most once per `listRetryMs`; true when the devices were updated. */
  private async list(now = Date.now()): Promise<boolean> {
    if (now - this.listedAt < this.listRetryMs) return false;
    this.listedAt = now;
    const out = await runSmiCommand(this.command, AMD_SMI_LIST_ARGS, this.timeoutMs);
    let problem = out.error;
    if (!problem) {
      try {
        this.devices = parseAmdSmiList(out.stdout);
      } catch (error) {
        problem = `${this.command} list printed no JSON: ${(error as Error).message}`;
      }
    }
    if (problem) {
      // Readings still flow, only without PCI addresses, UUIDs and partitions: worth one warning.
      if (!this.listFailing)
        this.log.warn("amd-smi list failed; GPUs go without PCI address, UUID or partition", {
          reason: problem,
        });
      this.listFailing = true;
      return false;
    }
    this.listFailing = false;
    return true;
  }

  /** The latest reading of every GPU (and partition), none when older than three intervals. */
  latest(now = Date.now()): GpuUsage[] {
    return [...this.fresh(now)];
  }
}
