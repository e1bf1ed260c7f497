import { PolledGpuSource, type PolledGpuSourceOptions } from "../gpu/polled-gpu-source.js";
import type { GpuUsage } from "../usage-parts.js";
import { parseRocmSmiJson, ROCM_SMI_ARGS } from "./rocm-smi-json.js";
import { runSmiCommand } from "./run-smi-command.js";

/** Options of {@link RocmSmi}: the command, and the polling loop's (a run per `intervalMs`). */
export type RocmSmiOptions = PolledGpuSourceOptions & {
  /** The rocm-smi executable (a path or a name on PATH). @default "rocm-smi" */
  command?: string;
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
export class RocmSmi extends PolledGpuSource<GpuUsage> {
  readonly cannotSee = ["processes on each GPU", "GPUs lost from the bus", "partitions of a GPU"] as const;
  private readonly command: string;

  constructor(options: RocmSmiOptions = {}) {
    const command = options.command ?? "rocm-smi";
    super(options, {
      answersAgain: "rocm-smi answers again",
      failing: "rocm-smi failed; trying again",
      where: { command },
    });
    this.command = command;
  }

  /** The loop's read is one run of rocm-smi. */
  protected read(): Promise<void> {
    return this.poll();
  }

  /** One run of rocm-smi; resolves (never rejects) once readings are updated or the failure noted. */
  async poll(): Promise<void> {
    const out = await runSmiCommand(this.command, ROCM_SMI_ARGS, this.timeoutMs);
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
    this.succeeded(parsed.gpus.map((g) => g.usage));
    for (const g of parsed.gpus) this.identities.set(g.identity.index, g.identity);
  }

  /** The latest reading of every GPU, none when older than three intervals. */
  latest(now = Date.now()): GpuUsage[] {
    return [...this.fresh(now)];
  }
}
