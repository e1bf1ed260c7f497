import type { UsageSample } from "@jobsight/schemas";

/**
 * Metric names used in evidence are paths into a {@link UsageSample}: `memory.currentBytes`,
 * `cpu.throttledPeriods`, `pressure.ioSome`, `pids`, plus two keyed forms:
 * `gpus.<index>.<field>` (the GPU whose nvidia-smi `index` is `<index>`, not its array position)
 * and `processes.<pid>.rssBytes`. One reader resolves them for the rules and the evidence check alike.
 */
export type MetricName = string;

const SOURCES: Record<string, string> = {
  "memory.currentBytes": "cgroup:memory.current",
  "memory.peakBytes": "cgroup:memory.peak",
  "memory.limitBytes": "cgroup:memory.max",
  "memory.anonBytes": "cgroup:memory.stat",
  "memory.fileBytes": "cgroup:memory.stat",
  "memory.shmemBytes": "cgroup:memory.stat",
  "memory.swapBytes": "cgroup:memory.swap.current",
  "memory.oomEvents": "cgroup:memory.events",
  "memory.oomKillEvents": "cgroup:memory.events",
  "cpu.usageSeconds": "cgroup:cpu.stat",
  "cpu.userSeconds": "cgroup:cpu.stat",
  "cpu.systemSeconds": "cgroup:cpu.stat",
  "cpu.periods": "cgroup:cpu.stat",
  "cpu.throttledPeriods": "cgroup:cpu.stat",
  "cpu.throttledSeconds": "cgroup:cpu.stat",
  "cpu.limitCores": "cgroup:cpu.max",
  "io.readBytes": "cgroup:io.stat",
  "io.writeBytes": "cgroup:io.stat",
  pids: "cgroup:pids.current",
  "pressure.cpuSome": "cgroup:cpu.pressure",
  "pressure.memorySome": "cgroup:memory.pressure",
  "pressure.memoryFull": "cgroup:memory.pressure",
  "pressure.ioSome": "cgroup:io.pressure",
  "pressure.ioFull": "cgroup:io.pressure",
};

const UNITS: Record<string, string> = {
  Bytes: "By",
  Seconds: "s",
  Percent: "%",
  Cores: "{core}",
  Periods: "{period}",
  Events: "{event}",
  Watts: "W",
  Celsius: "Cel",
};

/** Where a metric is read, e.g. `cgroup:memory.stat`, `nvidia-smi`, `proc`. */
export function metricSource(metric: MetricName): string {
  if (metric.startsWith("gpus.")) return "nvidia-smi";
  if (metric.startsWith("processes.")) return "proc";
  return SOURCES[metric] ?? "collector";
}

/** The UCUM unit of a metric, from its name's suffix (`…Bytes` is `By`). */
export function metricUnit(metric: MetricName): string | undefined {
  if (metric.startsWith("pressure.") || metric.endsWith("utilizationPercent")) return "%";
  if (metric === "pids") return "{task}";
  for (const [suffix, unit] of Object.entries(UNITS)) if (metric.endsWith(suffix)) return unit;
  return undefined;
}

/** The name of GPU `index`'s field, e.g. `gpus.0.utilizationPercent`. */
export function gpuMetric(
  index: number,
  field: "utilizationPercent" | "memoryUsedBytes" | "memoryTotalBytes",
) {
  return `gpus.${index}.${field}`;
}

/** The name of a process's resident set, e.g. `processes.4242.rssBytes`. */
export function processMetric(pid: number): MetricName {
  return `processes.${pid}.rssBytes`;
}

/**
 * The value of `metric` in `sample`, or undefined when the sample does not carry it.
 *
 * @example
 * ```ts
 * readMetric(sample, "memory.anonBytes"); // 31_457_280_000
 * readMetric(sample, "gpus.1.utilizationPercent"); // 0
 * ```
 */
export function readMetric(sample: UsageSample, metric: MetricName): number | undefined {
  const parts = metric.split(".");
  if (parts[0] === "gpus" && parts.length === 3) {
    const gpu = sample.gpus?.find((g) => g.index === Number(parts[1]));
    const v = gpu?.[parts[2] as keyof typeof gpu];
    return typeof v === "number" ? v : undefined;
  }
  if (parts[0] === "processes" && parts.length === 3 && parts[2] === "rssBytes") {
    return sample.processes?.find((p) => p.pid === Number(parts[1]))?.rssBytes;
  }
  let node: unknown = sample;
  for (const p of parts) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[p];
  }
  return typeof node === "number" ? node : undefined;
}
