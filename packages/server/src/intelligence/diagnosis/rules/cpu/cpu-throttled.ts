import type { EvidenceRef } from "@jobsight/schemas";
import { metricEvidence, present } from "../../evidence.js";
import { formatDuration, formatShare, trim } from "../../explain/format.js";
import { type DiagnosisRule, NOTHING } from "../rule.js";

/**
 * CPU throttled: the cgroup's `cpu.max` quota stopped it in more than the allowed share of its
 * scheduling periods (`nr_throttled / nr_periods`, cumulative counters over the sampled span).
 */
export const cpuThrottledRule: DiagnosisRule = {
  name: "cpu-throttled",
  evaluate(ctx) {
    const parts: string[] = [];
    const evidence: EvidenceRef[] = [];
    let worst = 0;
    for (const [node, samples] of ctx.series) {
      const withPeriods = samples.filter(
        (s) => s.cpu?.periods !== undefined && s.cpu.throttledPeriods !== undefined,
      );
      if (withPeriods.length < 2) continue;
      const first = withPeriods[0];
      const last = withPeriods[withPeriods.length - 1];
      const periods = last.cpu!.periods! - first.cpu!.periods!;
      const throttled = last.cpu!.throttledPeriods! - first.cpu!.throttledPeriods!;
      if (periods <= 0 || throttled < 0) continue;
      const share = throttled / periods;
      if (share <= ctx.thresholds.throttledPeriodsShare) continue;
      worst = Math.max(worst, share);
      const limit = last.cpu!.limitCores;
      const lost =
        last.cpu!.throttledSeconds !== undefined && first.cpu!.throttledSeconds !== undefined
          ? last.cpu!.throttledSeconds - first.cpu!.throttledSeconds
          : undefined;
      parts.push(
        `on ${node} it was throttled in ${formatShare(share)} of ${periods} periods${limit !== undefined ? ` by its ${trim(limit)}-core quota` : ""}${lost !== undefined ? ` (${formatDuration(lost)} of throttled time)` : ""}`,
      );
      evidence.push(
        ...present(
          metricEvidence(
            node,
            "cpu.throttledPeriods",
            [first, last],
            `cpu.stat nr_throttled on ${node} rose by ${throttled}.`,
          ),
          metricEvidence(
            node,
            "cpu.periods",
            [first, last],
            `cpu.stat nr_periods on ${node} rose by ${periods}.`,
          ),
          metricEvidence(
            node,
            "cpu.limitCores",
            [last],
            `cpu.max on ${node}: ${limit !== undefined ? trim(limit) : "?"} cores.`,
          ),
          lost !== undefined
            ? metricEvidence(
                node,
                "cpu.throttledSeconds",
                [first, last],
                `cpu.stat throttled_usec on ${node}.`,
              )
            : undefined,
        ),
      );
    }
    if (parts.length === 0) return NOTHING;
    return {
      findings: [
        {
          kind: "cpu_throttled",
          severity: "warning",
          claim: `The job wanted more CPU than its quota allowed: ${parts.join("; ")}. Throttled threads stall for the rest of each period, which slows the job and its latency-sensitive parts most.`,
          confidence: worst > 0.25 ? 0.9 : 0.75,
          evidence,
        },
      ],
    };
  },
};
