import type { EvidenceRef, Unseen } from "@jobsight/schemas";
import { cpuCoverage } from "../../coverage.js";
import { metricEvidence, present, schedulerEvidence } from "../../evidence.js";
import { formatDuration, formatShare, ms, trim } from "../../explain/format.js";
import { type DiagnosisRule, NOTHING } from "../rule.js";

/**
 * Low CPU efficiency: CPU time used / (time x cores reserved) below the bar, over the sampled span
 * of each node (from the cumulative `cpu.stat usage_usec`, so no interval is missed). Judged on a
 * short job too once its samples cover enough of the run; a node whose samples do not is `unseen`.
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
    const unseen: Unseen[] = [];
    for (const node of ctx.series.keys()) {
      const { samples: withCpu, unseen: notJudged } = cpuCoverage(ctx, node);
      if (notJudged) {
        unseen.push(notJudged);
        continue;
      }
      const first = withCpu[0];
      const last = withCpu[withCpu.length - 1];
      const seconds = (ms(last.time) - ms(first.time)) / 1000;
      const u = last.cpu!.usageSeconds - first.cpu!.usageSeconds;
      // A counter that went backwards means the cgroup was recreated: the span says nothing.
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
    const eff = capacity > 0 ? used / capacity : 1;
    if (eff >= t.cpuLowEfficiencyShare) return unseen.length ? { findings: [], unseen } : NOTHING;
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
    const over = `${formatShare(eff)} CPU efficiency over ${formatDuration(span)}`;
    // Under a twentieth of a core is no work at all: say the cores were idle, not "0 busy".
    const claim =
      avg < 0.05
        ? `The job reserved ${trim(cores)} cores per node and left them all idle (${over}); they were unavailable to other jobs.`
        : `The job reserved ${trim(cores)} cores per node but kept ${trim(avg)} of them busy on average (${over}); the rest sat idle and unavailable to other jobs.`;
    return {
      findings: [
        {
          kind: "cpu_low_efficiency",
          severity: "warning",
          claim,
          confidence: 0.85,
          evidence,
        },
      ],
      unseen,
    };
  },
};
