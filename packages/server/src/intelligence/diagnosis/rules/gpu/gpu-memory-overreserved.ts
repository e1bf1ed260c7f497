import type { EvidenceRef } from "@jobsight/schemas";
import { metricEvidence, present, schedulerEvidence } from "../../evidence.js";
import { formatBytes, formatShare } from "../../explain/format.js";
import { gpuMetric } from "../../metric-paths.js";
import { type DiagnosisRule, NOTHING } from "../rule.js";
import { gpuStats, isUnused, judgeable } from "./gpu-stats.js";

/**
 * GPU memory over-reserved: a completed job whose busy GPUs never used more than a small share of
 * the GPU memory reserved (the requested GPU memory, else the whole GPU's memory).
 */
export const gpuMemoryOverreservedRule: DiagnosisRule = {
  name: "gpu-memory-overreserved",
  evaluate(ctx) {
    if (ctx.state !== "COMPLETED" || ctx.failed) return NOTHING;
    const requested = ctx.record.spec.requested.gpuMemoryBytes;
    const perGpuRequest =
      requested !== undefined && ctx.gpusReserved > 0 ? requested / ctx.gpusReserved : undefined;
    const over = gpuStats(ctx).filter((s) => {
      const reserved = perGpuRequest ?? s.memoryTotalBytes;
      return (
        judgeable(ctx, s) &&
        !isUnused(ctx, s) &&
        reserved !== undefined &&
        s.maxMemoryUsedBytes < ctx.thresholds.gpuMemoryUsedShare * reserved
      );
    });
    if (over.length === 0) return NOTHING;
    const evidence: EvidenceRef[] = [];
    for (const s of over) {
      evidence.push(
        ...present(
          metricEvidence(
            s.node,
            gpuMetric(s.device, "memoryUsedBytes"),
            s.samples,
            `${s.device.label} memory in use on ${s.node}; at most ${formatBytes(s.maxMemoryUsedBytes)}.`,
          ),
          perGpuRequest === undefined
            ? metricEvidence(
                s.node,
                gpuMetric(s.device, "memoryTotalBytes"),
                [s.maxMemorySample],
                `${s.device.label} on ${s.node} has ${formatBytes(s.memoryTotalBytes!)}.`,
              )
            : undefined,
        ),
      );
    }
    if (perGpuRequest !== undefined) {
      evidence.push(
        ...present(
          schedulerEvidence(
            ctx,
            "spec.requested.gpuMemoryBytes",
            `The job requested ${formatBytes(requested!)} of GPU memory.`,
          ),
        ),
      );
    }
    const list = over
      .map((s) => {
        const reserved = perGpuRequest ?? s.memoryTotalBytes!;
        return `${s.device.label} on ${s.node} used at most ${formatBytes(s.maxMemoryUsedBytes)} of ${formatBytes(reserved)} (${formatShare(s.maxMemoryUsedBytes / reserved)})`;
      })
      .join("; ");
    return {
      findings: [
        {
          kind: "gpu_memory_overreserved",
          severity: "warning",
          claim: `The job used far less GPU memory than it reserved: ${list}. A GPU with less memory, or a slice of one, would have held it.`,
          confidence: 0.75,
          evidence,
        },
      ],
    };
  },
};
