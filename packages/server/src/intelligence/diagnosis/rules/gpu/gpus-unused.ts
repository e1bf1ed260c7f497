import type { EvidenceRef } from "@jobsight/schemas";
import { metricEvidence, present } from "../../evidence.js";
import { formatBytes, formatDuration, formatShare } from "../../explain/format.js";
import { gpuMetric } from "../../metric-paths.js";
import { type DiagnosisRule, NOTHING } from "../rule.js";
import { gpuStats, gpusNotJudged, isUnused, judgeable } from "./gpu-stats.js";

/**
 * GPUs reserved but unused: a GPU of the job below the idle threshold in most of its samples (for
 * the whole job, or most of it). Needs GPU readings covering enough of the run: a GPU seen too
 * briefly is `unseen` (for every GPU rule), never called idle.
 */
export const gpusUnusedRule: DiagnosisRule = {
  name: "gpus-unused",
  evaluate(ctx) {
    const stats = gpuStats(ctx);
    const unseen = gpusNotJudged(ctx, stats);
    const all = stats.filter((s) => judgeable(ctx, s));
    const unused = all.filter((s) => isUnused(ctx, s));
    if (unused.length === 0) return unseen.length ? { findings: [], unseen } : NOTHING;
    const evidence: EvidenceRef[] = [];
    for (const s of unused) {
      evidence.push(
        ...present(
          metricEvidence(
            s.node,
            gpuMetric(s.device, "utilizationPercent"),
            s.samples,
            `${s.device.label} on ${s.node}: below ${ctx.thresholds.gpuIdlePercent}% utilisation in ${formatShare(s.idleShare)} of ${s.samples.length} samples.`,
          ),
          metricEvidence(
            s.node,
            gpuMetric(s.device, "memoryUsedBytes"),
            [s.maxMemorySample],
            `${s.device.label} on ${s.node}: at most ${formatBytes(s.maxMemoryUsedBytes)} of GPU memory in use.`,
          ),
        ),
      );
    }
    const always = unused.every((s) => s.idleShare === 1);
    // "The whole job" only when no stretch of the run went unwatched; else the span that was.
    const watched = unused.every((s) => s.coverage.complete)
      ? "the whole job"
      : `the ${formatDuration(Math.min(...unused.map((s) => s.coverage.seconds)))} of the run their readings cover`;
    const names = unused.map((s) => `${s.device.label} on ${s.node}`).join(", ");
    const reserved = ctx.gpusReserved > 0 ? ctx.gpusReserved : all.length;
    return {
      findings: [
        {
          kind: "gpus_unused",
          severity: "warning",
          claim:
            `${unused.length} of the ${reserved} GPU${reserved > 1 ? "s" : ""} the job reserved did no work ` +
            `${always ? "for" : "for most of"} ${watched}: ${names} stayed below ${ctx.thresholds.gpuIdlePercent}% utilisation` +
            `${always ? " in every sample" : ` in at least ${formatShare(Math.min(...unused.map((s) => s.idleShare)))} of the samples`}.`,
          confidence: 0.9,
          evidence,
        },
      ],
      unseen,
    };
  },
};
