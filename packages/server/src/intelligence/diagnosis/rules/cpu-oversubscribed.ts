import type { EvidenceRef, Unseen } from "@jobsight/schemas";
import { cpuCoverage } from "../coverage.js";
import { metricEvidence, present } from "../evidence.js";
import { formatShare, trim } from "../explain/format.js";
import { cpuRates } from "../series.js";
import { type DiagnosisRule, NOTHING } from "./rule.js";

/**
 * CPU oversubscribed: more runnable threads than reserved cores. Every core busy while
 * `cpu.pressure some` stays high means tasks queue for a core (typically thread pools sized to the
 * node's cores rather than the job's). Judged only where the CPU samples cover enough of the run.
 */
export const cpuOversubscribedRule: DiagnosisRule = {
  name: "cpu-oversubscribed",
  evaluate(ctx) {
    const t = ctx.thresholds;
    const parts: string[] = [];
    const evidence: EvidenceRef[] = [];
    const unseen: Unseen[] = [];
    for (const [node, samples] of ctx.series) {
      const cores = samples.find((s) => s.cpu?.limitCores !== undefined)?.cpu?.limitCores ?? ctx.coresPerNode;
      if (cores === undefined) continue;
      const cpu = cpuCoverage(ctx, node);
      if (cpu.unseen) {
        unseen.push(cpu.unseen);
        continue;
      }
      const rates = cpuRates(samples).filter((r) => r.to.pressure?.cpuSome !== undefined);
      if (rates.length < 3) continue;
      const contended = rates.filter(
        (r) => r.to.pressure!.cpuSome! >= t.cpuPressureSomePercent && r.cores >= t.cpuSaturatedShare * cores,
      );
      const share = contended.length / rates.length;
      if (share < t.cpuOversubscribedShare) continue;
      const meanPressure = contended.reduce((s, r) => s + r.to.pressure!.cpuSome!, 0) / contended.length;
      const withPids = samples.filter((s) => s.pids !== undefined);
      const maxPids = withPids.length ? Math.max(...withPids.map((s) => s.pids!)) : undefined;
      const at = contended.map((r) => r.to);
      parts.push(
        `on ${node}, all ${trim(cores)} cores were busy and CPU pressure (some) averaged ${trim(meanPressure)}% in ${formatShare(share)} of the samples${maxPids !== undefined ? `, with up to ${maxPids} tasks in the job` : ""}`,
      );
      evidence.push(
        ...present(
          metricEvidence(
            node,
            "pressure.cpuSome",
            at,
            `cpu.pressure some (avg10) on ${node} in the contended samples.`,
          ),
          metricEvidence(
            node,
            "cpu.usageSeconds",
            [contended[0].from, contended[contended.length - 1].to],
            `CPU time on ${node} across the contended stretch.`,
          ),
          maxPids !== undefined
            ? metricEvidence(
                node,
                "pids",
                withPids,
                `Tasks in the job's cgroup on ${node}; at most ${maxPids}.`,
              )
            : undefined,
        ),
      );
    }
    if (parts.length === 0) return unseen.length ? { findings: [], unseen } : NOTHING;
    return {
      findings: [
        {
          kind: "cpu_oversubscribed",
          severity: "warning",
          claim: `The job ran more busy threads than the cores it reserved: ${parts.join("; ")}. Threads queued for a core much of the time.`,
          confidence: 0.75,
          evidence,
        },
      ],
      unseen,
    };
  },
};
