import { metricEvidence, present } from "../../evidence.js";
import { trim } from "../../explain/format.js";
import { gpuMetric } from "../../metric-paths.js";
import { type DiagnosisRule, NOTHING } from "../rule.js";
import { gpuStats, isUnused, judgeable } from "./gpu-stats.js";

/**
 * GPU under-utilised: a GPU that did work, but whose utilisation averaged below the "low" bar over
 * the job. GPUs idle for most of the job are the gpus-unused rule's, not this one's.
 */
export const gpuUnderutilisedRule: DiagnosisRule = {
  name: "gpu-underutilised",
  evaluate(ctx) {
    const low = gpuStats(ctx).filter(
      (s) =>
        judgeable(ctx, s) && !isUnused(ctx, s) && s.meanUtilisation < ctx.thresholds.gpuLowUtilisationPercent,
    );
    if (low.length === 0) return NOTHING;
    const list = low
      .map((s) => `${s.device.label} on ${s.node} averaged ${trim(s.meanUtilisation)}%`)
      .join(", ");
    return {
      findings: [
        {
          kind: "gpu_underutilised",
          severity: "warning",
          claim: `The job kept its GPUs busy only a small part of the time: ${list} utilisation over ${low[0].samples.length} samples (below ${ctx.thresholds.gpuLowUtilisationPercent}%).`,
          confidence: 0.7,
          evidence: low.flatMap((s) =>
            present(
              metricEvidence(
                s.node,
                gpuMetric(s.device, "utilizationPercent"),
                s.samples,
                `${s.device.label} utilisation on ${s.node} over the job; mean ${trim(s.meanUtilisation)}%.`,
              ),
            ),
          ),
        },
      ],
    };
  },
};
