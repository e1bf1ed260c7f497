import type { GpuUsage } from "../usage-parts.js";
import type { GpuFault } from "./gpu-lost.js";
import type { ComputeApp, GpuIdentity } from "./nvidia-smi-csv.js";

/** Where a GPU source stands. */
export type GpuSourceStatus = "stopped" | "starting" | "running" | "unavailable";

/**
 * What the collector needs of a GPU source (nvidia-smi, dcgm-exporter, rocm-smi): the latest
 * reading of each GPU, the GPUs ever seen, the processes on them and GPUs found lost, where the
 * source can tell. A source that cannot see something returns nothing for it and says so in
 * `cannotSee`.
 */
export interface GpuSource {
  readonly status: GpuSourceStatus;
  /** What this source cannot observe, in words a diagnosis can name, e.g. "processes on each GPU". */
  readonly cannotSee: readonly string[];
  start(): void;
  stop(): Promise<void>;
  /** The latest reading of every whole GPU, leaving out stale ones. */
  latest(now?: number): GpuUsage[];
  /** Every GPU read since start, lost ones included. */
  known(): GpuIdentity[];
  /** Which processes use which GPU now; empty where the source cannot tell. */
  computeApps(): Promise<ComputeApp[]>;
  /** GPUs found lost since the last call. */
  takeFaults(): GpuFault[];
  /** The latest reading of every MIG instance (`mig` set), for sources that read instances apart. */
  migDevices?(now?: number): GpuUsage[];
  /** Readings of devices the source itself ties to a Kubernetes pod (`namespace/name`), MIG instances included. */
  podDevices?(now?: number): Map<string, GpuUsage[]>;
}
