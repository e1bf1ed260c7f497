import type { EvidenceRef } from "@jobsight/schemas";
import { metricEvidence, present, schedulerEvidence } from "../evidence.js";
import { formatDuration, formatShare, ms, trim } from "../explain/format.js";
import { type DiagnosisRule, NOTHING } from "./rule.js";

/**
 * Low CPU efficiency: CPU time used / (time x cores reserved) below the bar, over the sampled span
 * of each node (from the cumulative `cpu.stat usage_usec`, so no interval is missed).
 */
export const cpuLowEfficiencyRule: DiagnosisRule = {
  name: "cpu-low-efficiency",
  evaluate(ctx) {
    const t = ctx.thresholds;
    const cores = ctx.coresPerNode;
    if (cores === undefined || cores < t.cpuLowEfficiencyMinCores) return NOTHING;
    let used = 0;
    let capacity = 0;
    let span = 0;
    const evidence: EvidenceRef[] = [];
    for (const [node, samples] of ctx.series) {
      const withCpu = samples.filter((s) => s.cpu !== undefined);
      if (withCpu.length < 2) continue;
      const first = withCpu[0];
      const last = withCpu[withCpu.length - 1];
      const seconds = (ms(last.time) - ms(first.time)) / 1000;
      const u = last.cpu!.usageSeconds - first.cpu!.usageSeconds;
      if (seconds <= 0 || u < 0) continue;
      used += u;
      capacity += seconds * cores;
      span = Math.max(span, seconds);
      evidence.push(
        ...present(
          metricEvidence(
            node,
            "cpu.usageSeconds",
            [first, last],
            `CPU time on ${node}: ${trim(u)} s used over ${formatDuration(seconds)} (${trim(u / seconds)} cores on average).`,
          ),
        ),
      );
    }
    if (capacity === 0 || span < t.minRunSecondsForUsageRules) return NOTHING;
    const eff = used / capacity;
    if (eff >= t.cpuLowEfficiencyShare) return NOTHING;
    const field = ctx.record.allocated?.cores !== undefined ? "allocated.cores" : "spec.requested.cores";
    evidence.unshift(
      ...present(
        schedulerEvidence(
          ctx,
          field,
          `The job reserved ${ctx.record.allocated?.cores ?? ctx.record.spec.requested.cores} cores.`,
        ),
      ),
    );
    const avg = used / (capacity / cores);
    return {
      findings: [
        {
          kind: "cpu_low_efficiency",
          severity: "warning",
          claim: `The job reserved ${trim(cores)} cores per node but kept ${trim(avg)} of them busy on average (${formatShare(eff)} CPU efficiency over ${formatDuration(span)}); the rest sat idle and unavailable to other jobs.`,
          confidence: 0.85,
          evidence,
        },
      ],
    };
  },
};
