import type { EvidenceRef } from "@jobsight/schemas";
import { metricEvidence, present } from "../evidence.js";
import { formatBytes, formatShare } from "../explain/format.js";
import { gpuStats, isUnused, longEnough } from "../gpu-stats.js";
import { gpuMetric } from "../metric-paths.js";
import { type DiagnosisRule, NOTHING } from "./rule.js";

/**
 * GPUs reserved but unused: a GPU of the job below the idle threshold in most of its samples (for
 * the whole job, or most of it). Needs GPU metrics; says nothing about GPUs it could not see.
 */
export const gpusUnusedRule: DiagnosisRule = {
  name: "gpus-unused",
  evaluate(ctx) {
    const all = gpuStats(ctx).filter((s) => longEnough(ctx, s));
    const unused = all.filter((s) => isUnused(ctx, s));
    if (unused.length === 0) return NOTHING;
    const evidence: EvidenceRef[] = [];
    for (const s of unused) {
      evidence.push(
        ...present(
          metricEvidence(
            s.node,
            gpuMetric(s.index, "utilizationPercent"),
            s.samples,
            `GPU ${s.index} on ${s.node}: below ${ctx.thresholds.gpuIdlePercent}% utilisation in ${formatShare(s.idleShare)} of ${s.samples.length} samples.`,
          ),
          metricEvidence(
            s.node,
            gpuMetric(s.index, "memoryUsedBytes"),
            [s.maxMemorySample],
            `GPU ${s.index} on ${s.node}: at most ${formatBytes(s.maxMemoryUsedBytes)} of GPU memory in use.`,
          ),
        ),
      );
    }
    const whole = unused.every((s) => s.idleShare === 1);
    const names = unused.map((s) => `GPU ${s.index} on ${s.node}`).join(", ");
    const reserved = ctx.gpusReserved > 0 ? ctx.gpusReserved : all.length;
    return {
      findings: [
        {
          kind: "gpus_unused",
          severity: "warning",
          claim:
            `${unused.length} of the ${reserved} GPU${reserved > 1 ? "s" : ""} the job reserved did no work ` +
            `${whole ? "for the whole job" : "for most of the job"}: ${names} stayed below ${ctx.thresholds.gpuIdlePercent}% utilisation` +
            `${whole ? " in every sample" : ` in at least ${formatShare(Math.min(...unused.map((s) => s.idleShare)))} of the samples`}.`,
          confidence: 0.9,
          evidence,
        },
      ],
    };
  },
};
