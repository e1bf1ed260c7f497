import type { Unseen, UsageSample } from "@jobsight/schemas";
import type { RuleContext } from "./context.js";
import { type Coverage, coverage, enough, notJudged } from "./coverage.js";
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
  /** How much of the run the GPU's readings cover (gaps in them saw nothing). */
  readonly coverage: Coverage;
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
    const gpus = `GPU${list.length > 1 ? "s" : ""} ${list.map((s) => s.index).join(", ")}`;
    return notJudged(
      ctx,
      "gpu-metrics",
      `The use of ${gpus} on ${node}`,
      "whether they were busy or idle",
      list[0].coverage,
    );
  });
}
