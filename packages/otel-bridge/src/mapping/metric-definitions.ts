import {
  AggregateMetricNames as A,
  LegacyJobMetricNames,
  JobMetricNames as M,
  SeriesAttributes as S,
} from "./metric-names.js";

// What each metric is on the wire (unit, instrument, value type, where its value comes from), for
// the encoders, the decoder's mappings and the README's tables, which a test keeps in step.

/** How one metric is sent. */
export interface MetricDefinition {
  /** The name sent by default (see `MetricNameSet`). */
  name: string;
  /** The 0.1 `jobsight.*` name, sent with `legacy` names and still read; only where it differs. */
  legacyName?: string;
  /** UCUM unit. */
  unit: string;
  /** `gauge`: a reading; `counter`: cumulative monotonic Sum (a cgroup counter since creation). */
  instrument: "gauge" | "counter";
  /** Whether points carry `as_int` or `as_double`. */
  valueType: "int" | "double";
  /** Where the value comes from in a UsageSample (or how an aggregate is formed). */
  source: string;
  /** Attributes beyond the job identity, in the order they are written. */
  attributes: readonly string[];
  description: string;
}

const gpu = [
  S.gpuIndex,
  S.gpuUuid,
  S.gpuType,
  S.gpuPciBusId,
  S.gpuParent,
  S.migInstanceId,
  S.migProfile,
] as const;
const def = (
  name: string,
  unit: string,
  instrument: MetricDefinition["instrument"],
  valueType: MetricDefinition["valueType"],
  source: string,
  description: string,
  attributes: readonly string[] = [],
): MetricDefinition => {
  const key = (Object.keys(M) as Array<keyof typeof M>).find((k) => M[k] === name);
  const legacyName = key && (LegacyJobMetricNames as Partial<Record<keyof typeof M, string>>)[key];
  return {
    name,
    ...(legacyName ? { legacyName } : {}),
    unit,
    instrument,
    valueType,
    source,
    attributes,
    description,
  };
};

/** Every per-job metric, in the order encoders write them. */
export const jobMetricDefinitions: readonly MetricDefinition[] = [
  def(M.memoryUsage, "By", "gauge", "int", "memory.currentBytes", "Memory in use by the job's cgroup."),
  def(M.memoryPeak, "By", "gauge", "int", "memory.peakBytes", "High-water mark of the cgroup's memory."),
  def(M.memoryLimit, "By", "gauge", "int", "memory.limitBytes", "The cgroup's memory limit (memory.max)."),
  def(M.memoryAnon, "By", "gauge", "int", "memory.anonBytes", "Anonymous memory (heap, stacks)."),
  def(M.memoryFile, "By", "gauge", "int", "memory.fileBytes", "Page cache charged to the job."),
  def(M.memoryShmem, "By", "gauge", "int", "memory.shmemBytes", "Shared memory and tmpfs such as /dev/shm."),
  def(M.memorySwap, "By", "gauge", "int", "memory.swapBytes", "Swap in use by the cgroup."),
  def(M.memoryOom, "{event}", "counter", "int", "memory.oomEvents", "Times the memory limit was hit."),
  def(
    M.memoryOomKill,
    "{event}",
    "counter",
    "int",
    "memory.oomKillEvents",
    "Processes killed by the OOM killer.",
  ),
  def(M.cpuTime, "s", "counter", "double", "cpu.usageSeconds", "CPU time used by the cgroup."),
  def(M.cpuUserTime, "s", "counter", "double", "cpu.userSeconds", "CPU time in user mode."),
  def(M.cpuSystemTime, "s", "counter", "double", "cpu.systemSeconds", "CPU time in kernel mode."),
  def(M.cpuPeriods, "{period}", "counter", "int", "cpu.periods", "CFS enforcement periods elapsed."),
  def(
    M.cpuThrottledPeriods,
    "{period}",
    "counter",
    "int",
    "cpu.throttledPeriods",
    "Periods the cgroup was throttled.",
  ),
  def(M.cpuThrottledTime, "s", "counter", "double", "cpu.throttledSeconds", "Time the cgroup was throttled."),
  def(
    M.cpuLimit,
    "{cpu}",
    "gauge",
    "double",
    "cpu.limitCores",
    "CPU limit in cores (cpu.max quota / period).",
  ),
  def(M.threadCount, "{thread}", "gauge", "int", "cpu.threads", "Threads of the job's processes."),
  def(
    M.threadRunnable,
    "{thread}",
    "gauge",
    "int",
    "cpu.runnableThreads",
    "Threads in state R: running or waiting for a core.",
  ),
  def(
    M.nodeLoad1m,
    "{thread}",
    "gauge",
    "double",
    "cpu.nodeLoad1",
    "The node's 1-minute load average (/proc/loadavg), for a job alone on its node.",
  ),
  def(
    M.nodeThreadRunnable,
    "{thread}",
    "gauge",
    "int",
    "cpu.nodeRunnable",
    "The node's threads in state R (/proc/loadavg), for a job alone on its node.",
  ),
  def(M.diskIo, "By", "counter", "int", "io.readBytes / io.writeBytes", "Bytes read and written.", [
    S.ioDirection,
  ]),
  def(
    M.diskOperations,
    "{operation}",
    "counter",
    "int",
    "io.readOps / io.writeOps",
    "Read and write operations.",
    [S.ioDirection],
  ),
  def(M.processCount, "{process}", "gauge", "int", "pids", "Tasks in the cgroup (pids.current)."),
  def(M.pressure, "1", "gauge", "double", "pressure.* / 100", "Share of time stalled, PSI avg10.", [
    S.pressureResource,
    S.pressureStall,
  ]),
  def(M.gpuUtilization, "1", "gauge", "double", "gpus[].utilizationPercent / 100", "GPU busy share.", gpu),
  def(M.gpuMemoryUsage, "By", "gauge", "int", "gpus[].memoryUsedBytes", "GPU memory in use.", gpu),
  def(M.gpuMemoryLimit, "By", "gauge", "int", "gpus[].memoryTotalBytes", "GPU memory in total.", gpu),
  def(M.gpuPower, "W", "gauge", "double", "gpus[].powerWatts", "GPU power draw.", gpu),
  def(M.gpuTemperature, "Cel", "gauge", "double", "gpus[].temperatureCelsius", "GPU temperature.", gpu),
  def(
    M.processMemory,
    "By",
    "gauge",
    "int",
    "processes[].rssBytes",
    "Resident memory of a notable process.",
    [S.processPid, S.processCommand, S.processState],
  ),
  def(
    M.progressDone,
    "{unit}",
    "gauge",
    "double",
    "progress.done",
    "Units of work the job reports done so far (its own count: steps, epochs, percent).",
    [S.progressUnit],
  ),
  def(
    M.progressLimit,
    "{unit}",
    "gauge",
    "double",
    "progress.total",
    "Units of work the job reports it has to do in all.",
    [S.progressUnit],
  ),
];

/** Every aggregated metric; attributes are the chosen grouping keys. */
export const aggregateMetricDefinitions: readonly MetricDefinition[] = [
  def(A.jobs, "{job}", "gauge", "int", "distinct jobs seen in the window", "Jobs running in the group."),
  def(
    A.memoryUsage,
    "By",
    "gauge",
    "int",
    "sum of memory.currentBytes",
    "Memory in use by the group's jobs.",
  ),
  def(A.memoryLimit, "By", "gauge", "int", "sum of memory.limitBytes", "Memory limits of the group's jobs."),
  def(A.cpuLimit, "{cpu}", "gauge", "double", "sum of cpu.limitCores", "CPU limits of the group's jobs."),
  def(A.processCount, "{process}", "gauge", "int", "sum of pids", "Tasks of the group's jobs."),
  def(A.gpuCount, "{gpu}", "gauge", "int", "count of gpus[]", "GPUs held by the group's jobs."),
  def(
    A.gpuUtilization,
    "1",
    "gauge",
    "double",
    "mean of gpus[].utilizationPercent / 100",
    "Mean GPU busy share.",
  ),
  def(A.gpuMemoryUsage, "By", "gauge", "int", "sum of gpus[].memoryUsedBytes", "GPU memory in use."),
];
