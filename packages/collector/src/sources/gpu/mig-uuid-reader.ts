import { type Logger, silentLogger } from "../../log/logger.js";
import { tiedCommand, trackChild } from "../../util/tied-child.js";
import { migPlaces } from "./mig-places.js";

/** Options of {@link MigUuidReader}. */
export type MigUuidReaderOptions = {
  /** The nvidia-smi executable (a path or a name on PATH), as `gpu.command` names it. */
  command: string;
  /** Time limit of one nvidia-smi run. @default 5000 */
  timeoutMs?: number;
  /** How long after a failed read to try again for the same MIG layout. @default 300000 */
  retryMs?: number;
  /** Structured log. @default silent */
  logger?: Logger;
};

/**
 * The MIG UUID of each MIG instance, by `<parent GPU UUID>/gi<GPU instance id>`, read from
 * nvidia-smi (`-L` and `-q -x`, joined by MIG device index: see `migPlaces`) only when the MIG
 * layout a source reports changes: instances are made and destroyed by an administrator, not
 * per job. A failed read (no nvidia-smi in the collector's container) is logged once and tried
 * again after `retryMs`; meanwhile instances carry no MIG UUID. Never rejects.
 *
 * @example
 * ```ts
 * const reader = new MigUuidReader({ command: "nvidia-smi", logger });
 * (await reader.forLayout(["GPU-7099682b-…/gi13"])).get("GPU-7099682b-…/gi13"); // "MIG-c6d4f1ef-…"
 * ```
 */
export class MigUuidReader {
  private readonly o: MigUuidReaderOptions;
  private readonly log: Logger;
  private layout = "";
  private uuids = new Map<string, string>();
  private failedAt: number | undefined;
  private saidFailing = false;

  constructor(options: MigUuidReaderOptions) {
    this.o = options;
    this.log = options.logger ?? silentLogger;
  }

  /** The MIG UUIDs of the instances `places` (`<parent UUID>/gi<id>`) name, read again when they change. */
  async forLayout(places: readonly string[], now = Date.now()): Promise<ReadonlyMap<string, string>> {
    const layout = [...places].sort().join(",");
    const retry = this.failedAt !== undefined && now - this.failedAt >= (this.o.retryMs ?? 300_000);
    if (layout === this.layout && (this.failedAt === undefined || !retry)) return this.uuids;
    this.layout = layout;
    const [list, query] = await Promise.all([this.run(["-L"]), this.run(["-q", "-x"])]);
    if (list === undefined) {
      this.failedAt = now;
      if (!this.saidFailing)
        this.log.warn(
          "cannot run nvidia-smi -L to learn MIG instances' UUIDs; allocations by MIG UUID go unmatched",
          {
            command: this.o.command,
          },
        );
      this.saidFailing = true;
      return this.uuids;
    }
    this.failedAt = undefined;
    this.saidFailing = false;
    const uuids = new Map<string, string>();
    for (const [uuid, place] of migPlaces(list, query))
      uuids.set(`${place.parentUuid}/gi${place.gpuInstanceId}`, uuid);
    this.uuids = uuids;
    return uuids;
  }

  private async run(args: string[]): Promise<string | undefined> {
    const { execFile } = await import("node:child_process");
    const tied = tiedCommand(this.o.command, args);
    return new Promise((resolve) => {
      trackChild(
        execFile(
          tied.file,
          tied.args,
          { timeout: this.o.timeoutMs ?? 5_000, maxBuffer: 8 * 1024 * 1024 },
          (error, stdout) => {
            if (error) this.log.debug(`nvidia-smi ${args.join(" ")} failed`, { error });
            resolve(error ? undefined : stdout);
          },
        ),
      );
    });
  }
}
