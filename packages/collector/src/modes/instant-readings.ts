import type { UsageSample } from "@jobsight/schemas/light";
import type { Logger } from "../log/logger.js";
import { readLoadAverage } from "../sources/load-average.js";

/** The node's load as a sample of a job alone on the node carries it. */
export type NodeLoad = { nodeLoad1: number; nodeRunnable: number };

/** Options of {@link ExclusiveNodeLoad}. */
export type ExclusiveNodeLoadOptions = {
  /** The procfs mount holding `loadavg`. @default "/proc" */
  procRoot?: string;
  /** Where a malformed `loadavg` is said (once per distinct problem). */
  logger: Logger;
};

/**
 * The node's load from `/proc/loadavg`, given only while one job runs on the node: then the
 * node's runnable tasks are that job's (plus daemons), and more of them than its cores is
 * oversubscription even where no thread was counted and no PSI exists. Never throws: a missing or
 * malformed file gives no load.
 *
 * @example
 * ```ts
 * const load = new ExclusiveNodeLoad({ procRoot: "/proc", logger });
 * load.read(1); // { nodeLoad1: 12.4, nodeRunnable: 13 }
 * load.read(2); // undefined: two jobs share the node
 * ```
 */
export class ExclusiveNodeLoad {
  private readonly root: string;
  private readonly log: Logger;
  private said: string | undefined;

  constructor(options: ExclusiveNodeLoadOptions) {
    this.root = options.procRoot ?? "/proc";
    this.log = options.logger;
  }

  /** The load, when `jobsOnNode` is exactly one; read afresh each call. */
  read(jobsOnNode: number): NodeLoad | undefined {
    if (jobsOnNode !== 1) return undefined;
    try {
      const l = readLoadAverage(this.root);
      this.said = undefined;
      // The collector's own thread is running while it reads the file, and is no task of the job.
      return l && { nodeLoad1: l.load1, nodeRunnable: Math.max(0, l.running - 1) };
    } catch (error) {
      // A bad file is said once, not every round, and costs the samples their load only.
      const message = String(error);
      if (this.said !== message) this.log.warn("node load left out of samples", { error });
      this.said = message;
      return undefined;
    }
  }
}

/**
 * A sample without what holds for its instant only (thread counts, the node's load): a final
 * reading re-stamps the last sample, and those figures are no reading of the moment the job ended.
 */
export function withoutInstantReadings(sample: UsageSample): UsageSample {
  const c = sample.cpu;
  if (
    c?.threads === undefined &&
    c?.runnableThreads === undefined &&
    c?.nodeLoad1 === undefined &&
    c?.nodeRunnable === undefined
  )
    return sample;
  const { threads: _t, runnableThreads: _r, nodeLoad1: _l, nodeRunnable: _n, ...cpu } = c;
  return { ...sample, cpu };
}
