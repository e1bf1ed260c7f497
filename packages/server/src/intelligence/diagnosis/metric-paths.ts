import type { UsageSample } from "@jobsight/schemas";
import { type GpuReading, gpuDeviceKey, gpuReadingOf } from "./gpu-device.js";

/**
 * Metric names used in evidence are paths into a {@link UsageSample}: `memory.currentBytes`,
 * `cpu.throttledPeriods`, `pressure.ioSome`, `pids`, plus two keyed forms:
 * `gpus.<device>.<field>` (the GPU whose nvidia-smi `index` is `<device>`, not its array position,
 * or its MIG instance `<index>/gi<id>`: see `gpu-device.ts`) and `processes.<pid>.rssBytes`. One reader resolves them for the rules and the evidence check alike;
 * where each was read is `metric-sources.ts`'s.
 */
export type MetricName = string;

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

/** The UCUM unit of a metric, from its name's suffix (`…Bytes` is `By`). */
export function metricUnit(metric: MetricName): string | undefined {
  if (metric.startsWith("pressure.") || metric.endsWith("utilizationPercent")) return "%";
  if (metric === "pids") return "{task}";
  if (["cpu.threads", "cpu.runnableThreads", "cpu.nodeRunnable", "cpu.nodeLoad1"].includes(metric))
    return "{thread}";
  for (const [suffix, unit] of Object.entries(UNITS)) if (metric.endsWith(suffix)) return unit;
  return undefined;
}

/**
 * The name of a GPU device's field: `gpus.0.utilizationPercent` for GPU 0, or
 * `gpus.1/gi13.utilizationPercent` for MIG instance 13 of GPU 1.
 *
 * @example
 * ```ts
 * gpuMetric({ index: 1, mig: { gpuInstanceId: 13 } }, "memoryUsedBytes"); // "gpus.1/gi13.memoryUsedBytes"
 * ```
 */
export function gpuMetric(
  device: Pick<GpuReading, "index" | "mig"> | { readonly key: string },
  field: "utilizationPercent" | "memoryUsedBytes" | "memoryTotalBytes",
): MetricName {
  return `gpus.${"key" in device ? device.key : gpuDeviceKey(device)}.${field}`;
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
 * readMetric(sample, "gpus.1/gi13.utilizationPercent"); // 87
 * ```
 */
export function readMetric(sample: UsageSample, metric: MetricName): number | undefined {
  const parts = metric.split(".");
  if (parts[0] === "gpus" && parts.length === 3) {
    const gpu = gpuReadingOf(sample, parts[1]);
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
