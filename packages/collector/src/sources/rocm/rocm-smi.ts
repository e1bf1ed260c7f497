import { tiedCommand, trackChild } from "../../util/tied-child.js";
import { PolledGpuSource, type PolledGpuSourceOptions } from "../gpu/polled-gpu-source.js";
import type { GpuUsage } from "../usage-parts.js";
import { parseRocmSmiJson, ROCM_SMI_ARGS } from "./rocm-smi-json.js";

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
    this.succeeded(parsed.gpus.map((g) => g.usage));
    for (const g of parsed.gpus) this.identities.set(g.identity.index, g.identity);
  }

  /** The latest reading of every GPU, none when older than three intervals. */
  latest(now = Date.now()): GpuUsage[] {
    return [...this.fresh(now)];
  }
}
