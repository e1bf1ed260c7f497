import type { EvidenceRef, UsageSample } from "@jobsight/schemas";
import { metricEvidence, present, schedulerEvidence } from "../evidence.js";
import { formatBytes, formatShare } from "../explain/format.js";
import { type DiagnosisRule, NOTHING } from "./rule.js";

/**
 * Memory over-requested: a completed job whose memory high-water mark stayed under a small share of
 * a sizeable request. The peak must cover the whole run: `memory.peak` at the final reading, or
 * the scheduler's recorded peak; the largest sampled `memory.current` alone could miss a spike.
 */
export const memoryOverrequestedRule: DiagnosisRule = {
  name: "memory-overrequested",
  evaluate(ctx) {
    const t = ctx.thresholds;
    const requested = ctx.requestedMemoryPerNode;
    if (
      ctx.state !== "COMPLETED" ||
      ctx.failed ||
      requested === undefined ||
      requested < t.memoryMinRequestBytes
    )
      return NOTHING;
    const evidence: EvidenceRef[] = [];
    let peak: number | undefined;
    if (ctx.finalReadingSeen) {
      for (const [node, samples] of ctx.series) {
        const withPeak = samples.filter((s) => s.memory?.peakBytes !== undefined);
        if (withPeak.length === 0) continue;
        const top = withPeak.reduce((a: UsageSample, s) =>
          s.memory!.peakBytes! > a.memory!.peakBytes! ? s : a,
        );
        peak = Math.max(peak ?? 0, top.memory!.peakBytes!);
        evidence.push(
          ...present(
            metricEvidence(
              node,
              "memory.peakBytes",
              [top],
              `memory.peak on ${node}: ${formatBytes(top.memory!.peakBytes!)}.`,
            ),
          ),
        );
      }
      if (evidence.length < ctx.series.size) return NOTHING;
    }
    const recorded = ctx.record.peaks?.memoryBytes;
    if (peak === undefined && recorded !== undefined) {
      peak = recorded / Math.max(1, ctx.nodes.length);
      evidence.push(
        ...present(
          schedulerEvidence(
            ctx,
            "peaks.memoryBytes",
            `The scheduler recorded a peak of ${formatBytes(recorded)}.`,
          ),
        ),
      );
    }
    if (peak === undefined || peak >= t.memoryUsedShare * requested) return NOTHING;
    const field =
      ctx.record.allocated?.memoryBytes !== undefined
        ? "allocated.memoryBytes"
        : "spec.requested.memoryBytes";
    evidence.unshift(
      ...present(
        schedulerEvidence(
          ctx,
          field,
          `The job reserved ${formatBytes(requested * Math.max(1, ctx.nodes.length))} of memory.`,
        ),
      ),
    );
    return {
      findings: [
        {
          kind: "memory_overrequested",
          severity: "warning",
          claim: `The job reserved ${formatBytes(requested)} of memory per node and never used more than ${formatBytes(peak)} (${formatShare(peak / requested)}); the rest was held from other jobs for the whole run.`,
          confidence: 0.85,
          evidence,
        },
      ],
    };
  },
};
