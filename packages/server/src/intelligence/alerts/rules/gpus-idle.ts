import type { EvidenceRef, UsageSample } from "@jobsight/schemas";
import { metricEvidence } from "../../diagnosis/evidence.js";
import { gpuDeviceKey, gpuDeviceLabel } from "../../diagnosis/gpu-device.js";
import { gpuMetric } from "../../diagnosis/metric-paths.js";
import type { LiveRule, Verdict } from "./live-rule.js";
import { covers, lastMinutes, latestTime } from "./live-series.js";

/** The evidence of at most this many GPUs is cited (the schema allows 64 pieces). */
const MAX_GPUS_CITED = 32;

type Gpu = {
  node: string;
  key: string;
  index: number;
  label: string;
  samples: UsageSample[];
  highest: number;
};

/**
 * Every GPU seen in the samples: a node's GPU `index`, or one MIG instance of it, merged over the
 * steps that report it.
 */
function gpusOf(samples: readonly UsageSample[]): Gpu[] {
  const by = new Map<string, Gpu>();
  for (const s of samples) {
    for (const g of s.gpus ?? []) {
      const device = gpuDeviceKey(g);
      const key = `${s.node}\u0000${device}`;
      const gpu = by.get(key) ?? {
        node: s.node,
        key: device,
        index: g.index,
        label: gpuDeviceLabel(g),
        samples: [],
        highest: 0,
      };
      gpu.samples.push(s);
      gpu.highest = Math.max(gpu.highest, g.utilizationPercent);
      by.set(key, gpu);
    }
  }
  return [...by.values()];
}

/**
 * `gpus-idle`: every GPU of the running job (each MIG instance apart) stayed below `gpuIdlePercent`
 * utilisation (nvidia-smi `utilization.gpu`) through the last `gpuIdleMinutes`. Not judged until
 * the GPU readings reach back that far. Cites each GPU's readings over the window.
 *
 * @example
 * ```ts
 * gpusIdle.evaluate(job, DEFAULT_ALERT_THRESHOLDS); // { holds: true, severity: "warning", … }
 * ```
 */
export const gpusIdle: LiveRule = {
  rule: "gpus-idle",
  evaluate(job, t): Verdict {
    const withGpus = job.samples.filter((s) => (s.gpus?.length ?? 0) > 0);
    if (withGpus.length === 0) return { holds: "unknown", reason: "no GPU readings" };
    const end = latestTime(withGpus);
    if (!covers(withGpus, end, t.gpuIdleMinutes))
      return { holds: "unknown", reason: `GPU readings span less than ${t.gpuIdleMinutes} min` };
    const gpus = gpusOf(lastMinutes(withGpus, end, t.gpuIdleMinutes));
    if (gpus.some((g) => g.highest >= t.gpuIdlePercent)) return { holds: false };
    const evidence: EvidenceRef[] = [];
    for (const g of gpus.slice(0, MAX_GPUS_CITED)) {
      const ref = metricEvidence(
        g.node,
        gpuMetric(g, "utilizationPercent"),
        g.samples,
        `${g.label} on ${g.node}: utilization.gpu at most ${g.highest}% over the last ${t.gpuIdleMinutes} min`,
      );
      if (ref) evidence.push({ ...ref, gpuIndex: g.index });
    }
    const highest = Math.max(...gpus.map((g) => g.highest));
    const count = gpus.length === 1 ? "The job's GPU" : `All ${gpus.length} GPUs of the job`;
    return {
      holds: true,
      severity: "warning",
      message: `${count} stayed below ${t.gpuIdlePercent}% utilisation for ${t.gpuIdleMinutes} min (highest ${highest}%): reserved and idle.`,
      evidence,
    };
  },
};
