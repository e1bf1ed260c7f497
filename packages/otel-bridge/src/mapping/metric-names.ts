import {
  ATTR_HW_ID,
  ATTR_HW_PARENT,
  ATTR_HW_TYPE,
  ATTR_PROCESS_STATE,
  METRIC_CONTAINER_CPU_TIME,
  METRIC_CONTAINER_DISK_IO,
  METRIC_CONTAINER_MEMORY_RSS,
  METRIC_CONTAINER_MEMORY_USAGE,
  METRIC_HW_GPU_MEMORY_LIMIT,
  METRIC_HW_GPU_MEMORY_USAGE,
  METRIC_HW_GPU_UTILIZATION,
  METRIC_HW_POWER,
  METRIC_HW_TEMPERATURE,
  METRIC_PROCESS_MEMORY_USAGE,
} from "@opentelemetry/semantic-conventions/incubating";

/**
 * The names, units and attribute keys of every OTLP metric Jobsight sends, following the
 * OpenTelemetry semantic conventions: the convention's metric name and attribute key where one
 * exists (a job's cgroup is measured as a container: `container.memory.usage`,
 * `container.cpu.time`; GPUs as `hw.gpu.*`, `hw.power`, `hw.temperature` with `hw.id`; notable
 * processes as `process.memory.usage` with `process.pid`, `process.command`, `process.state`;
 * `host.name`, `user.name`, `disk.io.direction`, `service.*`), UCUM units (`By`, `s`, `1` for
 * ratios, `{thing}` for counts), and dotted lower-case `jobsight.` names only for what has none
 * (the job id, peak memory, CFS throttling, pressure stall, the job's own progress...). Every
 * convention name comes from `@opentelemetry/semantic-conventions`, as the receiver's standard
 * inputs do.
 */

/**
 * Which names an encoder writes: `conventions`, the semantic-convention names above; `legacy`,
 * the `jobsight.*` names of release 0.1 (see {@link LegacyJobMetricNames}), kept for one release
 * so dashboards and rules can move over. Receivers read both.
 */
export type MetricNameSet = "conventions" | "legacy";

/** Attributes that say which job, node and sample a point belongs to. */
export const ObservationAttributes = {
  /** Resource: the registered cluster id. */
  cluster: "jobsight.cluster",
  /** Resource: the node, as the semantic conventions name a host. */
  node: "host.name",
  /** Resource: `slurm` or `kubernetes`, when the sender says. */
  scheduler: "jobsight.scheduler",
  /** Resource: who sent it. */
  serviceName: "service.name",
  /** Resource: `<cluster>/<node>`, so per-node series stay apart in Prometheus. */
  serviceInstanceId: "service.instance.id",
  /** Point: the scheduler's job id. */
  jobId: "jobsight.job.id",
  /** Point: SLURM step or container; absent for the whole job. */
  step: "jobsight.job.step",
  /** Point: the job's owner (semantic-convention `user.name`). */
  user: "user.name",
  /** Point: `true` on the last reading of a job (epilog). */
  final: "jobsight.sample.final",
  /** Aggregated mode: the partition (queue) grouped by. */
  partition: "jobsight.partition",
} as const;

/** Attributes that tell apart several points of one metric within one sample. */
export const SeriesAttributes = {
  /** The GPU's index on its node (no convention names one). */
  gpuIndex: "jobsight.gpu.index",
  /** The GPU's UUID as the convention's `hw.id`; `gpu<index>` for a GPU that reports none. */
  gpuUuid: ATTR_HW_ID,
  /** `gpu` on every GPU point (`hw.power` and `hw.temperature` need it to tell GPUs apart). */
  gpuType: ATTR_HW_TYPE,
  gpuPciBusId: "jobsight.gpu.pci_bus_id",
  /** On a MIG instance's points: its parent GPU's `hw.id` (the instance's own `hw.id` is its MIG UUID, else `<parent>/gi<id>`). */
  gpuParent: ATTR_HW_PARENT,
  /** On a MIG instance's points: its GPU instance id (DCGM's `GPU_I_ID`); no convention names one. */
  migInstanceId: "jobsight.gpu.mig.instance_id",
  /** On a MIG instance's points: its profile, e.g. `1g.5gb` (DCGM's `GPU_I_PROFILE`). */
  migProfile: "jobsight.gpu.mig.profile",
  /** `read` or `write` (semantic conventions). */
  ioDirection: "disk.io.direction",
  /** `cpu`, `memory` or `io`. */
  pressureResource: "jobsight.pressure.resource",
  /** `some` or `full`: whether some or all tasks stalled. */
  pressureStall: "jobsight.pressure.stall",
  processPid: "process.pid",
  processCommand: "process.command",
  /** The state letter of /proc/<pid>/stat (R, S, D...): a Linux process state code. */
  processState: ATTR_PROCESS_STATE,
  /** What the job counts its work in (step, epoch, %), on both progress points when it says. */
  progressUnit: "jobsight.job.progress.unit",
} as const;

/** The series attribute keys of release 0.1 that became convention keys, written with `legacy` names. */
export const LegacySeriesAttributes = {
  gpuUuid: "jobsight.gpu.uuid",
  processState: "jobsight.process.state",
} as const;

/**
 * Names of the per-job metrics: the convention's where one exists (a job's cgroup as a container,
 * its GPUs as `hw.*`, its notable processes as `process.*`), `jobsight.job.*` otherwise.
 */
export const JobMetricNames = {
  memoryUsage: METRIC_CONTAINER_MEMORY_USAGE,
  memoryPeak: "jobsight.job.memory.peak",
  memoryLimit: "jobsight.job.memory.limit",
  memoryAnon: METRIC_CONTAINER_MEMORY_RSS,
  memoryFile: "jobsight.job.memory.file",
  memoryShmem: "jobsight.job.memory.shmem",
  memorySwap: "jobsight.job.memory.swap.usage",
  memoryOom: "jobsight.job.memory.oom.count",
  memoryOomKill: "jobsight.job.memory.oom_kill.count",
  cpuTime: METRIC_CONTAINER_CPU_TIME,
  cpuUserTime: "jobsight.job.cpu.user.time",
  cpuSystemTime: "jobsight.job.cpu.system.time",
  cpuPeriods: "jobsight.job.cpu.periods",
  cpuThrottledPeriods: "jobsight.job.cpu.throttled.periods",
  cpuThrottledTime: "jobsight.job.cpu.throttled.time",
  cpuLimit: "jobsight.job.cpu.limit",
  threadCount: "jobsight.job.thread.count",
  threadRunnable: "jobsight.job.thread.runnable",
  /** The node's load, sent only for a job alone on its node. */
  nodeLoad1m: "jobsight.job.node.load_1m",
  nodeThreadRunnable: "jobsight.job.node.thread.runnable",
  diskIo: METRIC_CONTAINER_DISK_IO,
  diskOperations: "jobsight.job.disk.operations",
  processCount: "jobsight.job.process.count",
  pressure: "jobsight.job.pressure.stall",
  gpuUtilization: METRIC_HW_GPU_UTILIZATION,
  gpuMemoryUsage: METRIC_HW_GPU_MEMORY_USAGE,
  gpuMemoryLimit: METRIC_HW_GPU_MEMORY_LIMIT,
  gpuPower: METRIC_HW_POWER,
  gpuTemperature: METRIC_HW_TEMPERATURE,
  processMemory: METRIC_PROCESS_MEMORY_USAGE,
  progressDone: "jobsight.job.progress.done",
  progressLimit: "jobsight.job.progress.limit",
} as const;

/** The 0.1 names of the per-job metrics that now carry a convention name, written with `legacy` names. */
export const LegacyJobMetricNames = {
  memoryUsage: "jobsight.job.memory.usage",
  memoryAnon: "jobsight.job.memory.anon",
  cpuTime: "jobsight.job.cpu.time",
  diskIo: "jobsight.job.disk.io",
  gpuUtilization: "jobsight.job.gpu.utilization",
  gpuMemoryUsage: "jobsight.job.gpu.memory.usage",
  gpuMemoryLimit: "jobsight.job.gpu.memory.limit",
  gpuPower: "jobsight.job.gpu.power",
  gpuTemperature: "jobsight.job.gpu.temperature",
  processMemory: "jobsight.job.process.memory.usage",
} as const satisfies Partial<Record<keyof typeof JobMetricNames, string>>;

/** Names of the aggregated (per user / partition / node) metrics. */
export const AggregateMetricNames = {
  jobs: "jobsight.jobs.count",
  memoryUsage: "jobsight.jobs.memory.usage",
  memoryLimit: "jobsight.jobs.memory.limit",
  cpuLimit: "jobsight.jobs.cpu.limit",
  processCount: "jobsight.jobs.process.count",
  gpuCount: "jobsight.jobs.gpu.count",
  gpuUtilization: "jobsight.jobs.gpu.utilization",
  gpuMemoryUsage: "jobsight.jobs.gpu.memory.usage",
} as const;

/** The instrumentation scope name under which Jobsight metrics are sent. */
export const OBSERVATION_SCOPE_NAME = "@jobsight/otel-bridge";
