import type { Unseen, UsageSample } from "@jobsight/schemas";
import type { RuleContext } from "../../context.js";
import { type Coverage, coverage, enough, notJudged } from "../../coverage.js";
import {
  type GpuDevice,
  type GpuReading,
  gpuDevices,
  gpuDevicesLabel,
  gpuReadingOf,
} from "../../gpu-device.js";

/** What one GPU of the job (a whole GPU or one MIG instance) did over the samples of its node. */
export interface GpuStats {
  readonly node: string;
  /** The device: its key in metric names, its index and its label in words. */
  readonly device: GpuDevice;
  /** The node's samples that report this device, by time. */
  readonly samples: readonly UsageSample[];
  /** Share of those samples below the idle threshold. */
  readonly idleShare: number;
  /** Mean `utilization.gpu` over the samples (%). */
  readonly meanUtilisation: number;
  /** The sample with the most GPU memory in use. */
  readonly maxMemorySample: UsageSample;
  readonly maxMemoryUsedBytes: number;
  /** `memory.total` of the GPU, when reported. */
  readonly memoryTotalBytes: number | undefined;
  /** How much of the run the GPU's readings cover (gaps in them saw nothing). */
  readonly coverage: Coverage;
}

/** Per-device statistics (each MIG instance apart) for every node with GPU metrics. */
export function gpuStats(ctx: RuleContext): GpuStats[] {
  const out: GpuStats[] = [];
  for (const node of ctx.gpuMetricNodes) {
    const all = ctx.series.get(node) ?? [];
    for (const device of gpuDevices(all)) {
      const samples: UsageSample[] = [];
      const readings: GpuReading[] = [];
      for (const s of all) {
        const r = gpuReadingOf(s, device.key);
        if (r === undefined) continue;
        samples.push(s);
        readings.push(r);
      }
      const utils = readings.map((r) => r.utilizationPercent);
      let max = 0;
      for (let i = 1; i < readings.length; i++)
        if (readings[i].memoryUsedBytes > readings[max].memoryUsedBytes) max = i;
      out.push({
        node,
        device,
        samples,
        idleShare: utils.filter((u) => u < ctx.thresholds.gpuIdlePercent).length / utils.length,
        meanUtilisation: utils.reduce((a, b) => a + b, 0) / utils.length,
        maxMemorySample: samples[max],
        maxMemoryUsedBytes: readings[max].memoryUsedBytes,
        memoryTotalBytes: readings.map((r) => r.memoryTotalBytes).find((v) => v !== undefined),
        coverage: coverage(ctx, samples, "readings", all),
      });
    }
  }
  return out;
}

/** True when a GPU was idle for most of the job (the gpus-unused rule's test). */
export function isUnused(ctx: RuleContext, s: GpuStats): boolean {
  return s.idleShare >= ctx.thresholds.mostOfJobShare;
}

/** True when the GPU's readings cover enough of the run to judge its use. */
export function judgeable(ctx: RuleContext, s: GpuStats): boolean {
  return enough(ctx, s.coverage);
}

/** One `unseen` entry per node whose GPUs' readings are too few to say whether they worked. */
export function gpusNotJudged(ctx: RuleContext, stats: readonly GpuStats[]): Unseen[] {
  const byNode = new Map<string, GpuStats[]>();
  for (const s of stats) if (!judgeable(ctx, s)) byNode.set(s.node, [...(byNode.get(s.node) ?? []), s]);
  return [...byNode].map(([node, list]) => {
    const gpus = gpuDevicesLabel(list.map((s) => s.device));
    return notJudged(
      ctx,
      "gpu-metrics",
      `The use of ${gpus} on ${node}`,
      "whether they were busy or idle",
      list[0].coverage,
    );
  });
}
