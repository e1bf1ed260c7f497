import type { UsageSample } from "@jobsight/schemas";
import type { MetricName } from "./metric-paths.js";

/**
 * Which reader of the collector produced a sample: the job's cgroup (v2 or v1), or `/proc` alone
 * (no cgroups, as on SLURM without the cgroup plugin), where memory is the processes' summed RSS.
 */
export type SampleOrigin = "cgroup-v2" | "cgroup-v1" | "proc";

/** Where a value was read: a file or command, and the field of it as that source names it. */
export interface ReadFrom {
  readonly source: string;
  readonly field?: string;
}

const stat = (field: string): ReadFrom => ({ source: "cgroup:memory.stat", field });
const cpuStat = (field: string): ReadFrom => ({ source: "cgroup:cpu.stat", field });
const psi = (file: string, field: string): ReadFrom => ({ source: `cgroup:${file}`, field });

/**
 * Thread counts come from /proc whatever the cgroup layout (the collector's `job-threads.ts`), and
 * so does the node's load of a job alone on its node (`load-average.ts`).
 */
const THREADS: Readonly<Record<string, ReadFrom>> = {
  "cpu.threads": { source: "proc:/proc/<pid>/stat", field: "num_threads, summed over the job's processes" },
  "cpu.runnableThreads": {
    source: "proc:/proc/<pid>/task/<tid>/stat",
    field: "state R, counted over the job's threads",
  },
  "cpu.nodeLoad1": { source: "proc:/proc/loadavg", field: "1-minute load average (field 1)" },
  "cpu.nodeRunnable": {
    source: "proc:/proc/loadavg",
    field: "running tasks (field 4, before the slash), less the collector's reading thread",
  },
};

const CGROUP_V2: Readonly<Record<string, ReadFrom>> = {
  ...THREADS,
  "memory.currentBytes": { source: "cgroup:memory.current" },
  "memory.peakBytes": { source: "cgroup:memory.peak" },
  "memory.limitBytes": { source: "cgroup:memory.max" },
  "memory.anonBytes": stat("anon"),
  "memory.fileBytes": stat("file"),
  "memory.shmemBytes": stat("shmem"),
  "memory.swapBytes": { source: "cgroup:memory.swap.current" },
  "memory.oomEvents": { source: "cgroup:memory.events", field: "oom" },
  "memory.oomKillEvents": { source: "cgroup:memory.events", field: "oom_kill" },
  "cpu.usageSeconds": cpuStat("usage_usec"),
  "cpu.userSeconds": cpuStat("user_usec"),
  "cpu.systemSeconds": cpuStat("system_usec"),
  "cpu.periods": cpuStat("nr_periods"),
  "cpu.throttledPeriods": cpuStat("nr_throttled"),
  "cpu.throttledSeconds": cpuStat("throttled_usec"),
  "cpu.limitCores": { source: "cgroup:cpu.max" },
  "io.readBytes": { source: "cgroup:io.stat", field: "rbytes" },
  "io.writeBytes": { source: "cgroup:io.stat", field: "wbytes" },
  "io.readOps": { source: "cgroup:io.stat", field: "rios" },
  "io.writeOps": { source: "cgroup:io.stat", field: "wios" },
  pids: { source: "cgroup:pids.current" },
  "pressure.cpuSome": psi("cpu.pressure", "some avg10"),
  "pressure.memorySome": psi("memory.pressure", "some avg10"),
  "pressure.memoryFull": psi("memory.pressure", "full avg10"),
  "pressure.ioSome": psi("io.pressure", "some avg10"),
  "pressure.ioFull": psi("io.pressure", "full avg10"),
};

const blkio = (file: string, field: string): ReadFrom => ({ source: `cgroup:blkio.throttle.${file}`, field });

/** cgroup v1 names the same figures in other files (the collector's `cgroup-v1-reader.ts`). */
const CGROUP_V1: Readonly<Record<string, ReadFrom>> = {
  ...CGROUP_V2,
  "memory.currentBytes": { source: "cgroup:memory.usage_in_bytes" },
  "memory.peakBytes": { source: "cgroup:memory.max_usage_in_bytes" },
  "memory.limitBytes": { source: "cgroup:memory.limit_in_bytes" },
  "memory.anonBytes": stat("total_rss"),
  "memory.fileBytes": stat("total_cache"),
  "memory.shmemBytes": stat("total_shmem"),
  "memory.swapBytes": stat("total_swap"),
  "memory.oomKillEvents": { source: "cgroup:memory.oom_control", field: "oom_kill" },
  "cpu.usageSeconds": { source: "cgroup:cpuacct.usage" },
  "cpu.userSeconds": { source: "cgroup:cpuacct.stat", field: "user" },
  "cpu.systemSeconds": { source: "cgroup:cpuacct.stat", field: "system" },
  "cpu.throttledSeconds": cpuStat("throttled_time"),
  "cpu.limitCores": { source: "cgroup:cpu.cfs_quota_us", field: "quota / cpu.cfs_period_us" },
  "io.readBytes": blkio("io_service_bytes", "Read"),
  "io.writeBytes": blkio("io_service_bytes", "Write"),
  "io.readOps": blkio("io_serviced", "Read"),
  "io.writeOps": blkio("io_serviced", "Write"),
};

const PROC_STAT = "proc:/proc/<pid>/stat";
const SUMMED = "summed over the job's processes";

/** Without cgroups the collector sums the job's processes (`summariseProcesses`). */
const PROC: Readonly<Record<string, ReadFrom>> = {
  "memory.currentBytes": { source: PROC_STAT, field: `rss, ${SUMMED}` },
  "memory.peakBytes": { source: "collector", field: `largest rss ${SUMMED} seen so far` },
  "cpu.usageSeconds": { source: PROC_STAT, field: `utime+stime+cutime+cstime, ${SUMMED}` },
  pids: { source: "proc:/proc", field: "processes of the job" },
  ...THREADS,
};

const GPU_FIELDS: Readonly<Record<string, string>> = {
  utilizationPercent: "utilization.gpu",
  memoryUsedBytes: "memory.used",
  memoryTotalBytes: "memory.total",
  powerWatts: "power.draw",
  temperatureCelsius: "temperature.gpu",
};

/** A process's resident set: `VmRSS` of its status file (the collector's `notableProcesses`). */
export const PROCESS_RSS: ReadFrom = Object.freeze({ source: "proc:/proc/<pid>/status", field: "VmRSS" });

/**
 * Which reader produced a sample, told from the fields it filled. The sample does not name its
 * reader, but each fills its own set: only cgroups give memory.stat, memory.events, a limit or the
 * user/system split; only cgroup v2 gives `memory.events oom` and pressure (PSI).
 *
 * @example
 * ```ts
 * sampleOrigin({ ...sample, memory: { currentBytes: 2 ** 30 } }); // "proc"
 * ```
 */
export function sampleOrigin(s: UsageSample): SampleOrigin {
  const m = s.memory;
  const c = s.cpu;
  const cgroupMemory =
    m !== undefined &&
    [m.limitBytes, m.anonBytes, m.fileBytes, m.shmemBytes, m.swapBytes, m.oomEvents, m.oomKillEvents].some(
      (v) => v !== undefined,
    );
  const cgroupCpu =
    c !== undefined && [c.userSeconds, c.systemSeconds, c.periods, c.limitCores].some((v) => v !== undefined);
  if (!cgroupMemory && !cgroupCpu && s.io === undefined && s.pressure === undefined) {
    if (m !== undefined || c !== undefined) return "proc";
  }
  const v1 =
    cgroupMemory &&
    m!.oomEvents === undefined &&
    s.pressure === undefined &&
    (m!.anonBytes !== undefined || m!.oomKillEvents !== undefined);
  return v1 ? "cgroup-v1" : "cgroup-v2";
}

/**
 * Where `metric` was read in a sample of the given origin, e.g. `cgroup:memory.stat` field `anon`,
 * `nvidia-smi` field `utilization.gpu`, `proc:/proc/<pid>/status` field `VmRSS`.
 */
export function readFrom(metric: MetricName, origin: SampleOrigin = "cgroup-v2"): ReadFrom {
  if (metric.startsWith("gpus.")) {
    const field = GPU_FIELDS[metric.split(".")[2] ?? ""];
    return field ? { source: "nvidia-smi", field } : { source: "nvidia-smi" };
  }
  if (metric.startsWith("processes.")) return PROCESS_RSS;
  const table = origin === "proc" ? PROC : origin === "cgroup-v1" ? CGROUP_V1 : CGROUP_V2;
  return table[metric] ?? { source: "collector" };
}
