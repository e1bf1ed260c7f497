import type { UsageSample } from "@jobsight/schemas";
import type { RuleContext } from "./context.js";
import { ms } from "./explain/format.js";
import { gpuIndices } from "./series.js";

/** What one GPU of the job did over the samples of its node. */
export interface GpuStats {
  readonly node: string;
  readonly index: number;
  /** The node's samples that report this GPU, by time. */
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
  /** Seconds between the first and the last sample. */
  readonly spanSeconds: number;
}

/** Per-GPU statistics for every node with GPU metrics. */
export function gpuStats(ctx: RuleContext): GpuStats[] {
  const out: GpuStats[] = [];
  for (const node of ctx.gpuMetricNodes) {
    const all = ctx.series.get(node) ?? [];
    for (const index of gpuIndices(all)) {
      const samples = all.filter((s) => s.gpus?.some((g) => g.index === index));
      const g = (s: UsageSample) => s.gpus!.find((x) => x.index === index)!;
      const utils = samples.map((s) => g(s).utilizationPercent);
      let maxMemorySample = samples[0];
      for (const s of samples)
        if (g(s).memoryUsedBytes > g(maxMemorySample).memoryUsedBytes) maxMemorySample = s;
      out.push({
        node,
        index,
        samples,
        idleShare: utils.filter((u) => u < ctx.thresholds.gpuIdlePercent).length / utils.length,
        meanUtilisation: utils.reduce((a, b) => a + b, 0) / utils.length,
        maxMemorySample,
        maxMemoryUsedBytes: g(maxMemorySample).memoryUsedBytes,
        memoryTotalBytes: samples.map((s) => g(s).memoryTotalBytes).find((v) => v !== undefined),
        spanSeconds: (ms(samples[samples.length - 1].time) - ms(samples[0].time)) / 1000,
      });
    }
  }
  return out;
}

/** True when a GPU was idle for most of the job (the gpus-unused rule's test). */
export function isUnused(ctx: RuleContext, s: GpuStats): boolean {
  return s.idleShare >= ctx.thresholds.mostOfJobShare;
}

/** True when the GPU was watched long enough to judge its use. */
export function longEnough(ctx: RuleContext, s: GpuStats): boolean {
  return s.spanSeconds >= ctx.thresholds.minRunSecondsForUsageRules && s.samples.length >= 3;
}
