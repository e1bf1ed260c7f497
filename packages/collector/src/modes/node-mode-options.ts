import type { Logger } from "../log/logger.js";
import type { CgroupVersion } from "../sources/cgroup-layout.js";
import type { GpuSource } from "../sources/gpu/gpu-source.js";
import type { KernelLog } from "../sources/kernel-log.js";
import type { ProcReader } from "../sources/proc-reader.js";
import type { DiskSpool } from "../spool/disk-spool.js";
import type { JobProgressReader } from "./job-progress-reader.js";
import type { ScrapedSources } from "./scraped-usage.js";
import type { SourceLimits } from "./source-limits.js";

/** Options of {@link NodeMode}; `cadvisor` and `nodeExporter` are scraped once per round. */
export type NodeModeOptions = ScrapedSources & {
  cluster: string;
  /** This node's name (a multi-slurmd scope prefix overrides it per job). */
  node: string;
  spool: DiskSpool;
  proc: ProcReader;
  /** The cgroup hierarchy; `none` attributes processes through /proc instead. */
  cgroupVersion: CgroupVersion;
  /** The cgroup mount point. @default "/sys/fs/cgroup" */
  cgroupRoot?: string;
  /** Time between collection rounds. @default 10000 */
  intervalMs?: number;
  /**
   * Name this many top memory holders per job (plus every process in state D); 0 turns the /proc
   * scan off on nodes with cgroups and no GPUs, and with it the jobs' thread counts. @default 5
   */
  topProcesses?: number;
  /**
   * The GPU source, if GPUs are watched: each job gets the GPUs SLURM or the kubelet allocated it
   * and those its processes use, and GPUs found lost become events on the job holding them. @default none
   */
  gpus?: GpuSource;
  /** The kubelet's PodResources unix socket, asked which GPUs pods hold. @default "/var/lib/kubelet/pod-resources/kubelet.sock" */
  podResourcesSocket?: string;
  /** The kubelet's pod log folder, whose `<namespace>_<name>_<uid>` folders tie pods to their cgroups. @default "/var/log/pods" */
  podLogsDir?: string;
  /**
   * The kernel log source, if watched. Without it, or while it cannot be opened, each job gets one
   * `source_unavailable` event (source `kmsg`): its OOM kills and Xids there went unseen. @default none
   */
  kernelLog?: KernelLog;
  /**
   * Measures jobs' progress (their progress file or output), sent as the samples' `progress`:
   * what the walltime-overrun alert projects from. Needs the /proc scan. @default none
   */
  progress?: JobProgressReader;
  /** Tells the server, once per job, which sources fed it and what they cannot see. @default none */
  sourceLimits?: SourceLimits;
  /** Clock. @default Date.now */
  now?: () => number;
  /** Structured log. @default silent */
  logger?: Logger;
  /**
   * Run a full garbage collection after a round once the old generation grew 2 MiB since the last
   * one (needs `--expose-gc`, which the `jobsight-collector` command sets). @default true
   */
  trimHeap?: boolean;
};

/** Figures for health output. */
export type NodeModeStats = {
  rounds: number;
  skippedRounds: number;
  failedRounds: number;
  lastRoundAt: string | null;
  lastRoundMs: number;
  jobs: number;
  /** Samples with fields dropped because the schema cannot take their values. */
  invalidSamples: number;
  /** Full garbage collections run between rounds to keep resident memory down. */
  heapTrims: number;
  /** Events and final readings waiting in memory for the spool to take them (disk full). */
  heldRecords: number;
};
